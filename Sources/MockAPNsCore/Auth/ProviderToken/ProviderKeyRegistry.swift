import Foundation

/// The authentication keys the mock accepts provider tokens from, by Key ID.
///
/// Load it from a key directory (`keys.json` plus one `AuthKey_<KEYID>.p8` per entry, as
/// `certs-dev/` holds them), build it from keys in code, or both.
package struct ProviderKeyRegistry: Sendable {
    private var keysByID: [String: ProviderKey] = [:]

    /// An empty registry: every token is refused until keys are registered.
    package init() {}

    /// A registry of the given keys. A Key ID given twice keeps the later key.
    package init(keys: [ProviderKey]) {
        for key in keys {
            register(key)
        }
    }

    /// Loads a key directory: `keys.json` names every key, and each named key's
    /// `AuthKey_<KEYID>.p8` (PKCS#8 PEM, ES256) must sit next to it. A `.p8` file that the
    /// manifest does not name is an error too, because a token signed with it would fail
    /// with a puzzling InvalidProviderToken.
    package init(directory: String) throws(ProviderKeyRegistryError) {
        let manifestFile = (directory as NSString).appendingPathComponent(ProviderKeyManifest.fileName)
        let manifest: ProviderKeyManifest
        do {
            manifest = try ProviderKeyManifest(parsing: try Self.readText(manifestFile))
        } catch let error as JSONFileError {
            throw ProviderKeyRegistryError(file: manifestFile, jsonPath: error.path,
                                           position: error.position, message: error.message)
        } catch let error as ProviderKeyRegistryError {
            throw error
        } catch {
            throw ProviderKeyRegistryError(file: manifestFile, message: "\(error)")
        }

        for entry in manifest.entries {
            let keyFile = (directory as NSString).appendingPathComponent(entry.keyFileName)
            do {
                let pem = try Self.readText(keyFile)
                register(try ProviderKey(
                    keyID: entry.keyID, teamID: entry.teamID, environment: entry.environment,
                    scope: entry.scope, topics: entry.topics.map(Set.init), pemRepresentation: pem))
            } catch let error as ProviderKeyRegistryError {
                throw ProviderKeyRegistryError(file: keyFile, message: "\(error.message) (named at \(entry.path))")
            } catch {
                // ProviderKeyError: the PEM is not an ES256 key.
                throw ProviderKeyRegistryError(file: keyFile, message: "\(error) (named at \(entry.path))")
            }
        }

        let named = Set(manifest.entries.map(\.keyFileName))
        let present = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in present.sorted() where file.hasPrefix("AuthKey_") && file.hasSuffix(".p8") && !named.contains(file) {
            throw ProviderKeyRegistryError(
                file: (directory as NSString).appendingPathComponent(file),
                message: "no entry in \(ProviderKeyManifest.fileName) for this key; add one with its teamId, environment and scope")
        }
    }

    /// Adds a key, replacing any key with the same Key ID. Connections that already
    /// authenticated with the old key keep using what they verified.
    package mutating func register(_ key: ProviderKey) {
        keysByID[key.keyID] = key
    }

    /// Removes a key; tokens naming it are refused from then on (except on connections that
    /// already verified them).
    @discardableResult
    package mutating func remove(keyID: String) -> ProviderKey? {
        keysByID.removeValue(forKey: keyID)
    }

    /// The key with this Key ID (a token header's `kid`).
    package func key(id keyID: String) -> ProviderKey? {
        keysByID[keyID]
    }

    /// Every key, ordered by Key ID.
    package var keys: [ProviderKey] {
        keysByID.values.sorted { $0.keyID < $1.keyID }
    }

    private static func readText(_ file: String) throws(ProviderKeyRegistryError) -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ProviderKeyRegistryError(file: file, message: "cannot read the file (missing or unreadable)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ProviderKeyRegistryError(file: file, message: "not UTF-8 text")
        }
        return text
    }
}

/// A key directory could not be loaded: which file, where in it, and what was wrong.
package struct ProviderKeyRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file at fault.
    package var file: String
    /// For `keys.json`: the JSON path of the mistake (`$.keys[2].environment`).
    package var jsonPath: String?
    /// For `keys.json`: where the mistake starts.
    package var position: SourcePosition?
    package var message: String

    package init(file: String, jsonPath: String? = nil, position: SourcePosition? = nil, message: String) {
        self.file = file
        self.jsonPath = jsonPath
        self.position = position
        self.message = message
    }

    package var description: String {
        var parts = [file]
        if let position { parts.append(position.description) }
        if let jsonPath { parts.append(jsonPath) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}
