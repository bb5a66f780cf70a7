import Hummingbird
import MockAPNsCore

/// The dashboard: a page at the control API's root that shows the journal live, and the
/// endpoints only it needs. The page's HTML, style and script are Swift strings compiled
/// into the binary (`DashboardPage`, `DashboardStyle`, `DashboardScript`), so it works with
/// no network and no files beside the executable.
struct Dashboard: Sendable {
    let server: MockAPNsServer

    /// `GET /` (the page), `GET /dashboard/style.css`, `GET /dashboard/app.js`, and the
    /// endpoints only it needs: `GET /v1/events/stream`, `GET /v1/reasons`.
    var routes: RouteCollection<ControlRequestContext> {
        let journal = server.journal
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get("/") { _, _ in Self.asset(DashboardPage.html, type: "text/html; charset=utf-8") }
        routes.get("dashboard/style.css") { _, _ in Self.asset(DashboardStyle.css, type: "text/css; charset=utf-8") }
        routes.get("dashboard/app.js") { _, _ in Self.asset(DashboardScript.javaScript, type: "text/javascript; charset=utf-8") }
        routes.get("v1/events/stream") { request, _ in
            do throws(ControlAPIError) {
                return try JournalEventStream(journal: journal).response(request)
            } catch {
                return error.response
            }
        }
        routes.get("v1/reasons") { _, _ in Self.reasons() }
        return routes
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
