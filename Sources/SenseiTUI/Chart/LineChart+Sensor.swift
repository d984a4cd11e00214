import SenseiModels

extension LineChart {
    /// The one way a sensor's chart is made, for the dashboard and for
    /// `sensei show` alike: on/off sensors on a fixed 0…1 domain in steps;
    /// silences bridged up to three usual intervals (for buckets the median
    /// spacing is the bucket width, so one missing bucket is bridged).
    /// A counter is drawn with its resets taken out (`withoutResets`).
    public init(detail data: DetailData, utcOffsetSeconds: Int, charset: Charset, cursor: Int? = nil) {
        let start = data.start.milliseconds, end = data.end.milliseconds
        // A zoomed window gets the labels its span calls for (`.all` plans by span).
        self.init(series: data.sensor.kind == .counter ? data.series.withoutResets() : data.series, start: start, end: end, range: data.zoomed ? .all : data.range,
                  utcOffsetSeconds: utcOffsetSeconds, charset: charset,
                  valueDomain: data.sensor.valueType == .bool ? 0...1 : nil,
                  maxGap: Self.bridgedGap(data), cursor: cursor, stepped: data.sensor.valueType == .bool)
    }

    /// Several sensors over one window on one axis (`c`, `sensei show A B`):
    /// the first as the line, the others as overlays, each in its own colour
    /// and dash pattern.
    public init?(compare details: [DetailData], utcOffsetSeconds: Int, charset: Charset, cursor: Int? = nil) {
        guard let first = details.first else { return nil }
        self.init(detail: first, utcOffsetSeconds: utcOffsetSeconds, charset: charset, cursor: cursor)
        // On/off sensors beside numbers share the numbers' axis.
        if details.contains(where: { $0.sensor.valueType != .bool }) { valueDomain = nil }
        overlays = details.dropFirst().prefix(3).enumerated().map { index, data in
            ChartLine(series: data.series, maxGap: Self.bridgedGap(data), stepped: data.sensor.valueType == .bool,
                      style: ChartLine.styles[index + 1])
        }
    }

    static func bridgedGap(_ data: DetailData) -> Int64? {
        let series = data.series
        let median = series.medianSpacing(in: series.lowerBound(data.start.milliseconds)..<series.upperBound(data.end.milliseconds))
        let spacing = max(data.usualInterval ?? 0, median ?? 0)
        return spacing > 0 ? 3 * spacing : nil
    }
}
