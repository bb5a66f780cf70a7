/// The version of MockAPNs: what `mockapns --version` prints and what names the release
/// archive (`scripts/package.sh` reads it from this line). The one place it is written.
package enum MockAPNsVersion {
    /// Semantic version of this build.
    package static let current = "0.1.0"
}
