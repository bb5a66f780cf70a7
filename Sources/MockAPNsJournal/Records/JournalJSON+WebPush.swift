import MockAPNsJSON

/// The JSON form of a web push request's details (`"webPush":{...}` inside its notification):
/// written and read here together, so the two change as one.
///
/// ```json
/// "webPush":{"ttl":60,"urgency":"normal","contentEncoding":"aes128gcm",
///  "vapid":{"sub":"mailto:ops@example.com","aud":"https://127.0.0.1:2200","exp":1767229200,"k":"BO..."},
///  "message":"{\"web_push\":8030,...}","notification":{"title":"Hello","navigate":"https://example.com/"}}
/// ```
extension JournalJSON {
    static func write(_ details: WebPushDetails, into writer: inout JSONWriter) {
        writer.beginObject("webPush")
        writer.integer("ttl", details.ttl)
        writer.string("urgency", details.urgency)
        writer.string("contentEncoding", details.contentEncoding)
        if details.subject != nil || details.audience != nil || details.jwtExpiration != nil || details.applicationServerKey != nil {
            writer.beginObject("vapid")
            writer.string("sub", details.subject)
            writer.string("aud", details.audience)
            writer.integer("exp", details.jwtExpiration)
            writer.string("k", details.applicationServerKey)
            writer.endObject()
        }
        if let message = details.message {
            if let text = details.messageText {
                writer.string("message", text)
            } else {
                writer.string("messageHex", hex(message))
            }
        }
        writer.string("messageProblem", details.messageProblem)
        if let notification = details.notification {
            writer.beginObject("notification")
            writer.string("title", notification.title)
            writer.string("body", notification.body)
            writer.string("navigate", notification.navigate)
            writer.string("lang", notification.lang)
            writer.string("dir", notification.dir)
            writer.string("tag", notification.tag)
            writer.bool("silent", notification.silent)
            writer.integer("appBadge", notification.appBadge)
            if notification.mutable { writer.bool("mutable", true) }
            writer.endObject()
        }
        writer.string("notificationProblem", details.notificationProblem)
        writer.endObject()
    }

    static func readWebPush(_ object: inout JSONObjectReader) throws(JSONFileError) -> WebPushDetails? {
        guard var web = try object.object("webPush") else { return nil }
        var details = WebPushDetails()
        details.ttl = try web.integer("ttl", in: 0...Int64(Int32.max)).map { Int($0) }
        details.urgency = try web.string("urgency")
        details.contentEncoding = try web.string("contentEncoding")
        if var vapid = try web.object("vapid") {
            details.subject = try vapid.string("sub")
            details.audience = try vapid.string("aud")
            details.jwtExpiration = try vapid.integer("exp", in: Int64.min...Int64.max)
            details.applicationServerKey = try vapid.string("k")
            try vapid.finish()
        }
        if let text = try web.string("message") {
            details.message = Array(text.utf8)
        } else {
            details.message = try hexBytes(&web, "messageHex")
        }
        details.messageProblem = try web.string("messageProblem")
        if var shown = try web.object("notification") {
            details.notification = WebPushNotificationContent(
                title: try need(shown.string("title"), shown, "title", "the notification's title"),
                body: try shown.string("body"),
                navigate: try need(shown.string("navigate"), shown, "navigate", "the notification's navigate URL"),
                lang: try shown.string("lang"), dir: try shown.string("dir"), tag: try shown.string("tag"),
                silent: try shown.bool("silent"),
                appBadge: try shown.integer("appBadge", in: 0...Int64(Int32.max)).map { Int($0) },
                mutable: try shown.bool("mutable") ?? false
            )
            try shown.finish()
        }
        details.notificationProblem = try web.string("notificationProblem")
        try web.finish()
        return details
    }
}
