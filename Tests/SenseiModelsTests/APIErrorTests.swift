import SenseiModels
import Testing

@Suite struct APIErrorTests {
    @Test(arguments: [
        (APIError.badRequest("bad limit"), 400, "bad limit"),
        (.unauthorized, 401, "unauthorized"),
        (.forbidden("needs the write scope"), 403, "needs the write scope"),
        (.notFound("no sensor 'x'"), 404, "no sensor 'x'"),
        (.methodNotAllowed("DELETE", allowed: ["GET", "POST"]), 405, "method DELETE is not allowed here; use GET, POST"),
        (.conflict("sensor 'x' exists"), 409, "sensor 'x' exists"),
        (.payloadTooLarge(limit: 1_048_576), 413, "request body is larger than the limit of 1048576 bytes"),
        (.unsupportedMediaType("text/plain"), 415, "body declared as 'text/plain' is not JSON; send application/json"),
        (.unprocessable("value is missing"), 422, "value is missing"),
        (.internalError, 500, "internal error"),
        (.overloaded, 503, "server is busy; retry shortly"),
    ] as [(APIError, Int, String)])
    func statusAndMessage(error: APIError, status: Int, message: String) {
        #expect(error.status == status)
        #expect(error.message == message)
        #expect(error.description == "\(status) \(message)")
    }

    @Test func headersTheStatusCallsFor() {
        #expect(APIError.unauthorized.headers == ["WWW-Authenticate": "Bearer"])
        #expect(APIError.methodNotAllowed("PUT", allowed: ["GET"]).headers == ["Allow": "GET"])
        #expect(APIError.methodNotAllowed("PUT", allowed: ["GET", "PATCH", "DELETE"]).headers
                == ["Allow": "GET, PATCH, DELETE"])
        #expect(APIError.notFound("x").headers.isEmpty)
        #expect(APIError(status: 418, message: "teapot").headers.isEmpty)
    }

    @Test(arguments: [
        (APIError.unauthorized, #"{"error":"unauthorized"}"#),
        (.notFound("no route GET /nope"), #"{"error":"no route GET /nope"}"#),
        (.badRequest("say \"hi\"\nand \\ bye"), #"{"error":"say \"hi\"\nand \\ bye"}"#),
        (.unprocessable("°C ✓"), #"{"error":"°C ✓"}"#),
        (APIError(status: 400, message: ""), #"{"error":""}"#),
    ] as [(APIError, String)])
    func body(error: APIError, expected: String) throws {
        #expect(error.body == Array(expected.utf8))
        #expect(try JSONParser.parse(error.body) == .object(["error": .string(error.message)]))
    }

    @Test func equality() {
        #expect(APIError.unprocessable("x") == APIError(status: 422, message: "x"))
        #expect(APIError.unprocessable("x") != APIError(status: 400, message: "x"))
        #expect(APIError.unauthorized != APIError(status: 401, message: "unauthorized"))
    }
}
