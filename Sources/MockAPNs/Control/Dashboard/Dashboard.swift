import Hummingbird
import MockAPNsCore

/// The dashboard: a page at the control API's root that shows the journal live, and the
/// endpoints only it needs. The page's HTML, style and script are Swift strings compiled
/// into the binary (`DashboardPage`, `DashboardStyle`, `DashboardScript`), so it works with
/// no network and no files beside the executable.
struct Dashboard: Sendable {
    let server: MockAPNsServer

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.asset(DashboardPage.html, type: "text/html; charset=utf-8") }
        router.get("/dashboard/style.css") { _, _ in Self.asset(DashboardStyle.css, type: "text/css; charset=utf-8") }
        router.get("/dashboard/app.js") { _, _ in Self.asset(DashboardScript.javaScript, type: "text/javascript; charset=utf-8") }
        let journal = server.journal
        router.get("/v1/events/stream") { request, _ -> Response in
            do throws(ControlAPIError) {
                return try JournalEventStream(journal: journal).response(request)
            } catch {
                return error.response
            }
        }
        router.get("/v1/reasons") { _, _ in Self.reasons() }
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
