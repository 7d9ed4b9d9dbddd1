import Foundation

/// A Python `pyproject.toml`: `version` in `[project]` (PEP 621) or in `[tool.poetry]`.
///
/// `dynamic = ["version"]` in `[project]` means a build backend computes the version, so that
/// table is not a source (a `[tool.poetry]` version still is). The version must be SemVer; PEP
/// 440 forms such as `1.0rc1` are reported as invalid. The format has no build number.
package struct PyprojectVersionFormat: TextualVersionFormat {
    /// `pyproject.toml`, as messages name the format.
    package var name: String { "pyproject.toml" }
    var versionKey: String { "project version" }

    /// Creates the format; it holds no state.
    package init() {}

    func locate(in text: VersionText) throws -> LocatedFields {
        let sections = try TOMLSections(text)
        var fields = LocatedFields()
        let dynamic = try isVersionDynamic(sections, text)
        if !dynamic {
            fields.versions += try TOMLSections.stringValues(of: "version", in: "project", sections: sections, text: text)
        }
        fields.versions += try TOMLSections.stringValues(of: "version", in: "tool.poetry", sections: sections, text: text)
        if fields.versions.isEmpty {
            try TOMLSections.refuseUnquotedVersion(in: dynamic ? ["tool.poetry"] : ["project", "tool.poetry"], sections: sections, text: text, format: name)
        }
        fields.absenceReason = dynamic
            ? "the version is dynamic (dynamic = [\"version\"]), computed by the build backend"
            : "there is no version in [project] or [tool.poetry]"
        return fields
    }

    /// True when `[project]` lists `"version"` in `dynamic`, on one line or over several.
    private func isVersionDynamic(_ sections: TOMLSections, _ text: VersionText) throws -> Bool {
        let start = try NSRegularExpression.builtIn(#"^\s*dynamic\s*=\s*\["#)
        let listed = try NSRegularExpression.builtIn(#"["']version["']"#)
        let lines = sections.lines(in: "project")
        guard let first = lines.firstIndex(where: { !text.matches(start, inLine: $0.index).isEmpty }) else { return false }
        for line in lines[first...] {
            let content = text.text(text.lines[line.index])
            if !VersionText.matches(listed, in: content).isEmpty { return true }
            if content.contains("]") { return false }
        }
        return false
    }
}
