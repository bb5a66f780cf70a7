import Hummingbird
import MockAPNsCore
import MockAPNsJournal

/// The dashboard: a page at the control API's root that shows the journal live, and the
/// endpoints only it needs. The page's HTML (`DashboardPage`), style and script (`app.js`,
/// `delivery.js` and `style.css`, embedded at build time: `DashboardAssets`) are in the
/// binary, so it works with no network and no files beside the executable.
package struct Dashboard: Sendable {
    package let server: any ControlledServer

    /// `GET /` (the page), `GET /dashboard/style.css`, `GET /dashboard/app.js`, and the
    /// endpoints only it needs: `GET /v1/events/stream`, `GET /v1/reasons`,
    /// `GET /v1/event-kinds`, `GET /v1/diagnosis-codes`.
    package var routes: RouteCollection<ControlRequestContext> {
        let journal = server.journal
        let server = self.server
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get("/") { _, _ in Self.asset(DashboardPage.html, type: "text/html; charset=utf-8") }
        routes.get("dashboard/style.css") { _, _ in Self.asset(DashboardAssets.style, type: "text/css; charset=utf-8") }
        routes.get("dashboard/app.js") { _, _ in Self.asset(DashboardAssets.script, type: "text/javascript; charset=utf-8") }
        routes.get("dashboard/delivery.js") { _, _ in
            Self.asset(DashboardAssets.deliveryScript, type: "text/javascript; charset=utf-8")
        }
        routes.get("v1/events/stream") { request, context in
            do throws(ControlAPIError) {
                // A session's token (the page's #token=) watches the session's own records.
                var stream = JournalEventStream(journal: journal, deliveredThrough: { server.deliveryDerivedThrough })
                stream.session = context.session
                return try stream.response(request)
            } catch {
                return error.response
            }
        }
        routes.get("v1/reasons") { _, _ in Self.reasons() }
        routes.get("v1/event-kinds") { _, _ in Self.eventKinds() }
        routes.get("v1/diagnosis-codes") { _, _ in Self.diagnosisCodes() }
        return routes
    }

    /// Every kind of journal event, in the order of their filter bits: the names `?type=`
    /// takes, whether each is recorded per wire frame, and what it records. The page follows
    /// the kinds that are not per frame, so a new kind shows up without a change to the script.
    private static func eventKinds() -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("kinds")
        for kind in JournalEventKind.Name.allCases {
            writer.beginObject()
            writer.string("name", kind.text)
            writer.bool("perFrame", kind.isPerFrame)
            writer.string("meaning", kind.meaning)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    /// Every diagnosis code the journal can record, with its area and meaning.
    private static func diagnosisCodes() -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("codes")
        for code in DiagnosisCode.allCases {
            writer.beginObject()
            writer.string("code", code.rawValue)
            writer.string("area", code.area)
            writer.string("meaning", code.meaning)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    /// Every refusal reason with its HTTP status and what Apple says it means, and every
    /// legacy status byte with its meaning: a legacy card explains the status its client was
    /// sent, which is finer than the reason behind it (status 5 and 8 are both BadDeviceToken).
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
        writer.beginArray("legacyStatuses")
        for status in LegacyStatus.allCases {
            writer.beginObject()
            writer.integer("status", Int(status.rawValue))
            writer.string("meaning", status.meaning)
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
