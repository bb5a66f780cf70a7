import MockAPNsCore

/// A Declarative Web Push message (Safari 18.4): a JSON body with `"web_push": 8030` that the
/// browser shows as a notification without running the service worker.
/// `{"web_push":8030,"notification":{"title":…,"navigate":"https://…","body"?,"lang"?,"dir"?,
/// "tag"?,"silent"?,"app_badge"?},"app_badge"?,"mutable"?}`.
package struct DeclarativeWebPushMessage: Sendable, Equatable {
    package var title: String
    package var body: String?
    /// Where a click on the notification goes: an absolute https: URL.
    package var navigate: String
    package var lang: String?
    /// "auto", "ltr" or "rtl".
    package var dir: String?
    package var tag: String?
    package var silent: Bool?
    /// The top-level `app_badge`, else the notification's (WebKit's examples show both places).
    package var appBadge: Int?
    /// Whether the service worker may change the notification before it is shown.
    package var mutable: Bool

    package init(
        title: String, body: String? = nil, navigate: String, lang: String? = nil, dir: String? = nil,
        tag: String? = nil, silent: Bool? = nil, appBadge: Int? = nil, mutable: Bool = false
    ) {
        self.title = title
        self.body = body
        self.navigate = navigate
        self.lang = lang
        self.dir = dir
        self.tag = tag
        self.silent = silent
        self.appBadge = appBadge
        self.mutable = mutable
    }

    /// What a plaintext says as Declarative Web Push: `nil` when it is not JSON or has no
    /// `web_push` member (an ordinary push for the service worker); otherwise the message, or
    /// the first mistake as "<JSON path>: expected …, got …". Members this model does not read
    /// (icon, data, actions, …) are left alone: the browser ignores what it does not know.
    static func read(_ plaintext: [UInt8]) -> Result<DeclarativeWebPushMessage, DeclarativeProblem>? {
        guard let text = String(validating: plaintext, as: UTF8.self),
              let node = try? JSONParser.parse(text),
              case .object(let members) = node.value,
              members.contains(where: { $0.key == "web_push" }) else {
            return nil
        }
        do {
            return .success(try parse(members))
        } catch {
            return .failure(error)
        }
    }

    /// One mistake in a Declarative Web Push message.
    struct DeclarativeProblem: Error {
        var message: String
    }

    private static func parse(_ top: [JSONMember]) throws(DeclarativeProblem) -> DeclarativeWebPushMessage {
        let members = Dictionary(top.map { ($0.key, $0.value.value) }, uniquingKeysWith: { first, _ in first })
        guard case .number("8030")? = members["web_push"] else {
            throw problem("$.web_push", "expected the number 8030", members["web_push"])
        }
        guard let notificationValue = members["notification"] else {
            throw DeclarativeProblem(message: "$.notification: expected an object with title and navigate, got nothing")
        }
        guard case .object(let notificationMembers) = notificationValue else {
            throw problem("$.notification", "expected an object with title and navigate", notificationValue)
        }
        let notification = Dictionary(notificationMembers.map { ($0.key, $0.value.value) }, uniquingKeysWith: { first, _ in first })
        guard case .string(let title)? = notification["title"], !title.isEmpty else {
            throw problem("$.notification.title", "expected a non-empty string", notification["title"])
        }
        guard case .string(let navigate)? = notification["navigate"], isAbsoluteHTTPS(navigate) else {
            throw problem("$.notification.navigate", "expected an absolute https: URL", notification["navigate"])
        }
        var message = DeclarativeWebPushMessage(title: title, navigate: navigate)
        message.body = try string(notification, "body", path: "$.notification.body")
        message.lang = try string(notification, "lang", path: "$.notification.lang")
        message.tag = try string(notification, "tag", path: "$.notification.tag")
        if let dir = try string(notification, "dir", path: "$.notification.dir") {
            guard ["auto", "ltr", "rtl"].contains(dir) else {
                throw problem("$.notification.dir", "expected \"auto\", \"ltr\" or \"rtl\"", .string(dir))
            }
            message.dir = dir
        }
        if let silent = notification["silent"] {
            guard case .bool(let flag) = silent else { throw problem("$.notification.silent", "expected true or false", silent) }
            message.silent = flag
        }
        let innerBadge = try badge(notification["app_badge"], path: "$.notification.app_badge")
        let outerBadge = try badge(members["app_badge"], path: "$.app_badge")
        message.appBadge = outerBadge ?? innerBadge
        if let mutable = members["mutable"] {
            guard case .bool(let flag) = mutable else { throw problem("$.mutable", "expected true or false", mutable) }
            message.mutable = flag
        }
        return message
    }

    private static func string(_ members: [String: JSONValue], _ key: String, path: String) throws(DeclarativeProblem) -> String? {
        guard let value = members[key] else { return nil }
        guard case .string(let text) = value else { throw problem(path, "expected a string", value) }
        return text
    }

    /// A non-negative integer, as a JSON number or a string of decimal digits.
    private static func badge(_ value: JSONValue?, path: String) throws(DeclarativeProblem) -> Int? {
        guard let value else { return nil }
        let expected = "expected a non-negative integer (a number or a string of digits)"
        let text: String
        switch value {
        case .number(let number): text = number
        case .string(let string): text = string
        case .null, .bool, .array, .object: throw problem(path, expected, value)
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let badge = Int(text) else {
            throw problem(path, expected, value)
        }
        return badge
    }

    /// `https://` and a host: relative URLs ("/inbox") and other schemes are refused.
    private static func isAbsoluteHTTPS(_ text: String) -> Bool {
        guard text.lowercased().hasPrefix("https://"), !text.contains(where: { $0.isWhitespace }) else { return false }
        let host = text.dropFirst("https://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return !host.isEmpty
    }

    private static func problem(_ path: String, _ expected: String, _ value: JSONValue?) -> DeclarativeProblem {
        DeclarativeProblem(message: "\(path): \(expected), got \(describe(value))")
    }

    /// A value as the message quotes it: strings and numbers as written, other kinds by name.
    private static func describe(_ value: JSONValue?) -> String {
        switch value {
        case nil: "nothing"
        case .string(let text)?: JSONWriter.quoted(String(text.prefix(200)))
        case .number(let text)?: text
        case .bool(let flag)?: flag ? "true" : "false"
        case .null?: "null"
        case .array?: "an array"
        case .object?: "an object"
        }
    }
}
