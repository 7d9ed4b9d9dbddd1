import Foundation
internal import Mustache

/// Renders releases through a user's Mustache template.
///
/// The template is text, not HTML: values are inserted as they are (no `&amp;` escaping) unless the
/// template sets `{{% CONTENT_TYPE: HTML}}` itself. Raw commit text is user data; use the
/// `markdown` fields where the output is Markdown.
///
/// The context:
/// - top level: `releases` (list), `release` (the first release, when there is one),
///   `repositoryURL` (when links are known);
/// - a release: `title`, `tagName`, `date` (`yyyy-MM-dd`), `previousTagName`, `compareURL`,
///   `isUnreleased`, `heading` (`## [1.2.0] - 2026-11-22`), `groups` (list), `commits` (every
///   commit, list);
/// - a group: `title`, `kind` (`breaking`, `configured`, `miscellaneous`, `other`), `isBreaking`,
///   `commits` (list);
/// - a commit: `id`, `shortId`, `summary`, `message`, `authorName`, `authorEmail`, `date`,
///   `url`, `isMerge`, `isConventional`, `type`, `scope`, `description`, `body`, `isBreaking`,
///   `breakingDescription`, `issues` (list of `number` and `url`), and `markdown`: the bullet text
///   the Markdown renderer writes after `- ` (escaped, with links).
///
/// Absent values (no scope, no links, no date) are missing keys, so `{{#scope}}…{{/scope}}` works.
package struct ChangelogTemplateRenderer: Sendable {
    private let template: MustacheTemplate
    private let markdown: MarkdownChangelogRenderer

    /// Parses the template.
    /// - Throws: ``ChangelogError/templateSyntax(reason:line:column:lineText:)`` with the line of
    ///   the template where parsing failed.
    package init(
        template text: String,
        configuration: ChangelogConfiguration = .init(),
        links: RemoteLinks? = nil,
        timeZone: TimeZone = .gmt
    ) throws {
        // The library escapes for HTML by default; a standalone pragma line on top switches to
        // text and is removed from the output, so user line N is template line N + 1.
        let setsContentType = text.contains("CONTENT_TYPE")
        let source = setsContentType ? text : "{{% CONTENT_TYPE: TEXT}}\n" + text
        let lineOffset = setsContentType ? 0 : 1
        do {
            template = try MustacheTemplate(string: source)
        } catch let error as MustacheTemplate.ParserError {
            throw ChangelogError.templateSyntax(
                reason: Self.reason(for: error.error),
                line: max(1, error.context.lineNumber - lineOffset),
                column: error.context.columnNumber,
                lineText: error.context.line)
        } catch {
            throw ChangelogError.templateSyntax(reason: Self.reason(for: error), line: nil, column: nil, lineText: nil)
        }
        markdown = MarkdownChangelogRenderer(configuration: configuration, links: links, timeZone: timeZone)
    }

    /// Renders one release (`release` and a one-element `releases` in the context).
    package func render(_ release: ChangelogRelease) -> String {
        render([release])
    }

    /// Renders a list of releases, newest first as given.
    package func render(_ releases: [ChangelogRelease]) -> String {
        let releaseContexts = releases.map(context(for:))
        var root: [String: Any] = ["releases": releaseContexts]
        if let first = releaseContexts.first { root["release"] = first }
        if let links = markdown.links { root["repositoryURL"] = links.repositoryURL }
        return template.render(root)
    }

    // MARK: - Context

    private func context(for release: ChangelogRelease) -> [String: Any] {
        var context: [String: Any] = [
            "title": release.title,
            "isUnreleased": release.isUnreleased,
            "heading": markdown.heading(for: release),
        ]
        context["tagName"] = release.tagName
        context["date"] = release.date.map(markdown.formattedDate)
        context["previousTagName"] = release.previousTagName
        context["compareURL"] = release.compareURL(links: markdown.links)
        context["groups"] = release.groups(configuration: markdown.configuration).map { group in
            [
                "title": group.title,
                "kind": group.kind.rawValue,
                "isBreaking": group.kind == .breaking,
                "commits": group.commits.map { self.context(for: $0, in: group.kind) },
            ] as [String: Any]
        }
        context["commits"] = release.commits.map { self.context(for: $0, in: .configured) }
        return context
    }

    private func context(for commit: ChangelogCommit, in kind: ChangelogGroup.Kind) -> [String: Any] {
        var context: [String: Any] = [
            "id": commit.id,
            "shortId": commit.shortId,
            "summary": commit.summary,
            "message": commit.message,
            "authorName": commit.authorName,
            "authorEmail": commit.authorEmail,
            "date": markdown.formattedDate(commit.date),
            "isMerge": commit.isMerge,
            "isConventional": commit.conventional != nil && kind != .other,
            "markdown": markdown.entry(for: commit, in: kind),
        ]
        context["url"] = markdown.links?.commitURL(commit.id)
        var issueNumbers: [Int] = []
        if let conventional = commit.conventional, kind != .other {
            context["type"] = conventional.type
            context["scope"] = conventional.scope
            context["description"] = conventional.description
            context["body"] = conventional.body
            context["isBreaking"] = conventional.isBreaking
            context["breakingDescription"] = conventional.breakingDescription
            issueNumbers = conventional.issueReferences
        } else {
            context["isBreaking"] = false
        }
        context["issues"] = issueNumbers.map { number -> [String: Any] in
            var issue: [String: Any] = ["number": number]
            issue["url"] = markdown.links?.issueURL(number)
            return issue
        }
        return context
    }

    private static func reason(for error: any Error) -> String {
        guard let parseError = error as? MustacheTemplate.Error else { return String(describing: error) }
        switch parseError {
        case .sectionCloseNameIncorrect: return "a closing tag does not match the open section"
        case .unfinishedName: return "a tag is not finished"
        case .expectedSectionEnd: return "a section is not closed"
        case .invalidSetDelimiter: return "a set-delimiter tag is malformed"
        case .transformAppliedToInheritanceSection: return "a transform is applied to an inheritance section"
        case .illegalTokenInsideInheritSection: return "an inheritance section holds a tag it may not hold"
        case .textInsideInheritSection: return "an inheritance section holds text"
        case .invalidConfigVariableSyntax: return "a {{% pragma}} is malformed"
        case .unrecognisedConfigVariable: return "a {{% pragma}} is not recognised"
        @unknown default: return String(describing: parseError)
        }
    }
}
