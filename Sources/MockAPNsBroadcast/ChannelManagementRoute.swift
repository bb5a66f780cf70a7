import MockAPNsCore

/// Which operation a method and path ask for.
package enum ChannelManagementRoute {
    /// The operation and bundle id, or `BadPath` (no such resource) or `MethodNotAllowed`
    /// (the resource exists, the method is not one it takes). `bundleID` is returned for a
    /// wrong method too, so the journal can say which app was meant.
    package static func resolve(method: String?, path: String?) -> (operation: ChannelOperation?, bundleID: String?, refusal: Reason?) {
        guard let path, path.hasPrefix("/1/apps/") else { return (nil, nil, .badPath) }
        let rest = path.dropFirst("/1/apps/".count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains("?") else { return (nil, nil, .badPath) }
        let bundleID = String(parts[0])
        switch parts[1] {
        case "channels":
            switch method {
            case "POST": return (.create, bundleID, nil)
            case "GET": return (.read, bundleID, nil)
            case "DELETE": return (.delete, bundleID, nil)
            default: return (nil, bundleID, .methodNotAllowed)
            }
        case "all-channels":
            return method == "GET" ? (.readAll, bundleID, nil) : (nil, bundleID, .methodNotAllowed)
        default:
            return (nil, bundleID, .badPath)
        }
    }
}
