import Hummingbird
import MockAPNsCore

/// A request the control API refuses, answered as `{"error": "...", "parameter": "..."}`.
struct ControlAPIError: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String
    /// The query parameter, path segment or JSON path at fault.
    var parameter: String?

    init(_ message: String, parameter: String? = nil, status: HTTPResponse.Status = .badRequest) {
        self.status = status
        self.message = message
        self.parameter = parameter
    }

    /// A mistake in a JSON body, located by its JSON path.
    init(_ error: JSONFileError) {
        self.init("\(error.position): \(error.message)", parameter: error.path)
    }

    var response: Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.string("error", message)
        writer.string("parameter", parameter)
        writer.endObject()
        return ControlResponse.json(writer.text, status: status)
    }
}

/// How control API responses are made.
enum ControlResponse {
    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// A JSON object built by `build`.
    static func object(status: HTTPResponse.Status = .ok, _ build: (inout JSONWriter) -> Void) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        build(&writer)
        writer.endObject()
        return json(writer.text, status: status)
    }
}
