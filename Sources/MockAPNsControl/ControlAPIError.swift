import Hummingbird
import MockAPNsCore

/// A request the control API refuses, answered as `{"error": "...", "parameter": "..."}`.
package struct ControlAPIError: Error, Sendable {
    package var status: HTTPResponse.Status
    package var message: String
    /// The query parameter, path segment or JSON path at fault.
    package var parameter: String?

    package init(_ message: String, parameter: String? = nil, status: HTTPResponse.Status = .badRequest) {
        self.status = status
        self.message = message
        self.parameter = parameter
    }

    /// A mistake in a JSON body, located by its JSON path.
    package init(_ error: JSONFileError) {
        self.init("\(error.position): \(error.message)", parameter: error.path)
    }

    package var response: Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.string("error", message)
        writer.string("parameter", parameter)
        writer.endObject()
        return ControlResponse.json(writer.text, status: status)
    }
}

/// How control API responses are made.
package enum ControlResponse {
    package static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// A JSON object built by `build`.
    package static func object(status: HTTPResponse.Status = .ok, _ build: (inout JSONWriter) -> Void) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        build(&writer)
        writer.endObject()
        return json(writer.text, status: status)
    }
}
