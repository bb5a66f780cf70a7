/// The dashboard's script and style sheet: `app.js`, `delivery.js` and `style.css` beside this
/// file, embedded in the binary at build time (`.embedInCode` in Package.swift), so they are
/// written, linted and diffed as the JavaScript and CSS they are, and a copied `mockapns`
/// binary still serves them.
package enum DashboardAssets {
    /// The views and the event stream's reader (`/dashboard/app.js`).
    package static let script = String(decoding: PackageResources.app_js, as: UTF8.self)
    /// The delivery parts, loaded before `app.js` (`/dashboard/delivery.js`).
    package static let deliveryScript = String(decoding: PackageResources.delivery_js, as: UTF8.self)
    /// The style sheet (`/dashboard/style.css`).
    package static let style = String(decoding: PackageResources.style_css, as: UTF8.self)
}
