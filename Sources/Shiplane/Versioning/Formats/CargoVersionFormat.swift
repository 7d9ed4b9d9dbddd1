import Foundation

/// A Rust `Cargo.toml`: `version = "X"` in `[package]` or `[workspace.package]`.
///
/// A package whose version is inherited (`version.workspace = true` or
/// `version = { workspace = true }`) is not a version source unless the same file also sets
/// `[workspace.package] version`. The format has no build number.
package struct CargoVersionFormat: TextualVersionFormat {
    /// `Cargo.toml`, as messages name the format.
    package var name: String { "Cargo.toml" }
    var versionKey: String { "package version" }

    /// Creates the format; it holds no state.
    package init() {}

    func locate(in text: VersionText) throws -> LocatedFields {
        let sections = try TOMLSections(text)
        var fields = LocatedFields()
        for table in ["package", "workspace.package"] {
            fields.versions += try TOMLSections.stringValues(of: "version", in: table, sections: sections, text: text)
        }
        if fields.versions.isEmpty {
            try TOMLSections.refuseUnquotedVersion(in: ["package", "workspace.package"], sections: sections, text: text, format: name)
        }
        let inherited = try NSRegularExpression.builtIn(#"^\s*version\s*(?:\.\s*workspace\s*=\s*true|=\s*\{[^}]*workspace\s*=\s*true)"#)
        if sections.lines(in: "package").contains(where: { !text.matches(inherited, inLine: $0.index).isEmpty }) {
            fields.absenceReason = "the version is inherited from the workspace (version.workspace = true)"
        } else {
            fields.absenceReason = "there is no version in [package] or [workspace.package]"
        }
        return fields
    }
}
