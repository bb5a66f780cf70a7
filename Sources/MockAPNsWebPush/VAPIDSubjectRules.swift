import MockAPNsCore

/// Apple's rules for the VAPID `sub` claim: "the subject claim isn't a URL or mailto:" is a
/// documented BadJwtToken, and field reports add that `mailto: x` (a space), `mailto:<x>`
/// (angle brackets) and addresses at hosts no one can reach are refused too. MockAPNs treats
/// RFC 2606/6761 special-use names (localhost, .localhost, .local, .invalid, .test, .example)
/// and hosts without a dot as unreachable; IP literals and example.com/.net/.org are accepted.
enum VAPIDSubjectRules {
    /// Why `sub` would be refused, in words that quote it and name the fix; `nil` when it is fine.
    static func problem(_ value: JSONValue?) -> String? {
        let refused = "Apple answers 403 BadJwtToken"
        guard let value else {
            return "`sub` is missing: Apple requires a contact, a `mailto:` address or an `https:` URL; \(refused). Send e.g. `mailto:admin@example.com`."
        }
        guard case .string(let subject) = value else {
            return "`sub` is \(value.kindDescription), not a string holding a `mailto:` address or an `https:` URL; \(refused)."
        }
        guard !subject.isEmpty else {
            return "`sub` is empty: Apple requires a `mailto:` address or an `https:` URL; \(refused)."
        }
        let quoted = "`sub` is `\(subject)`"
        let lowered = subject.lowercased()
        if lowered.hasPrefix("mailto:") {
            let address = subject.dropFirst("mailto:".count)
            let trimmed = address.trimmingWhitespace()
            if address.first.map(isWhitespace) == true {
                return "\(quoted): the space after `mailto:` makes it an invalid URL; \(refused). Send `mailto:\(trimmed)`."
            }
            if address.contains("<") || address.contains(">") {
                let bare = address.filter { $0 != "<" && $0 != ">" }.trimmingWhitespace()
                return "\(quoted): the angle brackets make it an invalid URL; \(refused). Send `mailto:\(bare)`."
            }
            if address.contains(where: isWhitespace) {
                return "\(quoted): it contains whitespace, which makes it an invalid URL; \(refused)."
            }
            // Headers after `?` (RFC 6068) are allowed; the address is before them.
            let mailbox = address.prefix { $0 != "?" }
            guard let at = mailbox.lastIndex(of: "@"), at != mailbox.startIndex, mailbox.index(after: at) != mailbox.endIndex else {
                return "\(quoted): `\(mailbox)` is not an email address (local part @ domain); \(refused). Send e.g. `mailto:admin@example.com`."
            }
            let host = mailbox[mailbox.index(after: at)...]
            if let unreachable = unreachableHost(host) {
                return "\(quoted): \(unreachable); \(refused). Use an address at a public domain."
            }
            return nil
        }
        if lowered.hasPrefix("https:") {
            if subject.contains(where: isWhitespace) {
                return "\(quoted): it contains whitespace, which makes it an invalid URL; \(refused)."
            }
            guard let host = urlHost(subject.dropFirst("https:".count)) else {
                return "\(quoted): not an absolute `https://host/...` URL; \(refused)."
            }
            if let unreachable = unreachableHost(host) {
                return "\(quoted): \(unreachable); \(refused). Use your site's public URL."
            }
            return nil
        }
        if lowered.hasPrefix("http:") {
            let fixed = "https:" + subject.dropFirst("http:".count)
            return "\(quoted): an `http:` URL; Apple accepts only a `mailto:` address or an `https:` URL; \(refused). Send `\(fixed)`."
        }
        if subject.contains("@"), !subject.contains(":") {
            return "\(quoted): an email address without `mailto:`; \(refused). Send `mailto:\(subject.trimmingWhitespace())`."
        }
        return "\(quoted): neither a `mailto:` address nor an `https:` URL; \(refused)."
    }

    /// The host of `//authority/...` (userinfo and port dropped), or `nil` when there is none.
    private static func urlHost(_ rest: Substring) -> Substring? {
        guard rest.hasPrefix("//") else { return nil }
        let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let host: Substring
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return nil }
            host = hostAndPort[...close]
        } else {
            host = hostAndPort.prefix { $0 != ":" }
        }
        return host.isEmpty ? nil : host
    }

    /// Why mail or requests could never reach `host`, or `nil` when they could.
    private static func unreachableHost(_ host: Substring) -> String? {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        // IP literals: [v6] and dotted IPv4.
        if name.hasPrefix("[") && name.hasSuffix("]") { return nil }
        if !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) { return nil }
        for special in ["localhost", "local", "invalid", "test", "example"] where name == special || name.hasSuffix("." + special) {
            return "`\(host)` is a special-use name (RFC 2606/6761, .\(special)) no one outside this machine or network can reach"
        }
        if !name.contains(".") {
            return "`\(host)` has no dot: not a public domain anyone outside this network can reach"
        }
        return nil
    }

    private static func isWhitespace(_ character: Character) -> Bool {
        character.isWhitespace
    }
}
