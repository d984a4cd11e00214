/// A file being imported, batch by batch: the import reads the next batch
/// only once one of the batches in flight is done, so memory stays bounded
/// by a few batches whatever the file's size.
protocol ImportSource: AnyObject {
    var path: String { get }
    /// Bytes of the file read so far, and its size: the progress bar's.
    var bytesRead: Int64 { get }
    var size: Int64 { get }
    /// What was left out on purpose (not refused), by reason: for the summary.
    var skipped: [String: Int] { get }
    /// Lines or rows the reader itself found bad, with their line numbers;
    /// the import takes them after each batch (so they never pile up).
    var refusals: [Refusal] { get set }
    /// Notes for the summary (sensors left as they were, …).
    var notes: [String] { get }
    /// Sensors this source created with their metadata (admin token only).
    var sensorsCreated: Int { get }
    func nextBatch() async throws -> ImportBatch?
}

extension ImportSource {
    var notes: [String] { [] }
    var sensorsCreated: Int { 0 }
}
