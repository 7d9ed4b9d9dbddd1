/// A failure while rendering a changelog or updating CHANGELOG.md.
package enum ChangelogError: ReportableError, Sendable {
    /// The user's Mustache template does not parse.
    case templateSyntax(reason: String, line: Int?, column: Int?, lineText: String?)
    /// CHANGELOG.md already has a section for the version being released.
    case versionAlreadyPresent(version: String, line: Int, heading: String)
    /// The changelog could not be encoded as JSON (a defect: the model is always encodable).
    case jsonEncodingFailed(underlying: any Error)

    /// Says what failed: the template, the duplicate version, or the JSON encoding.
    package var message: String {
        switch self {
        case .templateSyntax(let reason, let line, _, _):
            if let line { return "The changelog template has a syntax error on line \(line): \(reason)" }
            return "The changelog template has a syntax error: \(reason)"
        case .versionAlreadyPresent(let version, _, _):
            return "CHANGELOG.md already has a section for version \(version)"
        case .jsonEncodingFailed:
            return "The changelog could not be encoded as JSON"
        }
    }

    /// The template's line, column and text, or the duplicate heading and its line.
    package var info: [(key: String, value: String)] {
        switch self {
        case .templateSyntax(_, let line, let column, let lineText):
            var info: [(key: String, value: String)] = []
            if let line { info.append(("line", String(line))) }
            if let column { info.append(("column", String(column))) }
            if let lineText { info.append(("text", lineText)) }
            return info
        case .versionAlreadyPresent(_, let line, let heading):
            return [("line", String(line)), ("heading", heading)]
        case .jsonEncodingFailed:
            return []
        }
    }

    /// How to fix the template or the duplicate section; nil for the encoding defect.
    package var suggestion: String? {
        switch self {
        case .templateSyntax:
            return "Check that every {{#section}} has a matching {{/section}} and every tag is closed with }}."
        case .versionAlreadyPresent(let version, _, _):
            return "Release a new version, or remove or rename the existing \(version) section in CHANGELOG.md and run again; nothing was written."
        case .jsonEncodingFailed:
            return nil
        }
    }

    /// The encoding error, for the JSON defect.
    package var underlyingErrors: [any Error] {
        if case .jsonEncodingFailed(let underlying) = self { return [underlying] }
        return []
    }

    /// A defect for the JSON encoding; a plain failure otherwise.
    package var category: ErrorCategory {
        if case .jsonEncodingFailed = self { return .defect }
        return .failure
    }
}
