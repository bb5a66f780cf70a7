import Hummingbird
import MockAPNsCore

/// The dashboard: a page at the control API's root that shows the journal live, and the
/// endpoints only it needs. The page's HTML, style and script are Swift strings compiled
/// into the binary (`DashboardPage`, `DashboardStyle`, `DashboardScript`), so it works with
/// no network and no files beside the executable.
struct Dashboard: Sendable {
    let server: MockAPNsServer

    /// The page, its assets, and the endpoints only it needs, for the control API's route table.
    var routes: [ControlAPI.Route] {
        let journal = server.journal
        return [
            ControlAPI.Route(method: .get, path: "/", handler: { _, _ in Self.asset(DashboardPage.html, type: "text/html; charset=utf-8") }),
            ControlAPI.Route(method: .get, path: "/dashboard/style.css", handler: { _, _ in
                Self.asset(DashboardStyle.css, type: "text/css; charset=utf-8")
            }),
            ControlAPI.Route(method: .get, path: "/dashboard/app.js", handler: { _, _ in
                Self.asset(DashboardScript.javaScript, type: "text/javascript; charset=utf-8")
            }),
            ControlAPI.Route(method: .get, path: "/dashboard/delivery.js", handler: { _, _ in
                Self.asset(DashboardDeliveryScript.javaScript, type: "text/javascript; charset=utf-8")
            }),
            ControlAPI.Route(method: .get, path: "/v1/events/stream", handler: { request, _ throws(ControlAPIError) in
                try JournalEventStream(journal: journal).response(request)
            }),
            ControlAPI.Route(method: .get, path: "/v1/reasons", handler: { _, _ in Self.reasons() }),
        ]
    }

    /// Every refusal reason with its HTTP status and what Apple says it means.
    private static func reasons() -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("reasons")
        for reason in Reason.allCases {
            writer.beginObject()
            writer.string("reason", reason.rawValue)
            writer.integer("status", reason.httpStatus)
            writer.string("meaning", reason.meaning)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
}
