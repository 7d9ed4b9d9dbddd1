import Foundation
internal import Git

/// Tags HEAD: annotated (tagger and message) by default, lightweight on request.
///
/// An existing tag is refused unless `force`; rollback deletes the tag if it still points where
/// this step put it (and puts back the tag it replaced, with `force`).
package struct AddGitTag: Action {
    /// The action's name in steps and reports.
    package static let name = "addGitTag"
    /// The tag's name (`v1.2.0`).
    package var tag: String
    /// The annotated tag's message; nil: `Release TAG`.
    package var message: String?
    /// True for a lightweight tag: no tagger, no message.
    package var lightweight: Bool
    /// True to move a tag that exists.
    package var force: Bool
    /// True to sign the tag, false not to; nil: as git config's `tag.gpgSign` says (never for a lightweight tag).
    package var sign: Bool?

    /// Creates the action that tags HEAD as `tag`.
    package init(_ tag: String, message: String? = nil, lightweight: Bool = false, force: Bool = false, sign: Bool? = nil) {
        self.tag = tag
        self.message = message
        self.lightweight = lightweight
        self.force = force
        self.sign = sign
    }

    /// The tag, and `lightweight`, `force` and `sign` when set.
    package var options: [StepOption] {
        var shown = [StepOption("tag", tag)]
        if lightweight { shown.append(StepOption("lightweight", "true")) }
        if force { shown.append(StepOption("force", "true")) }
        if let sign { shown.append(StepOption("sign", "\(sign)")) }
        return shown
    }

    /// `tag`: the tag written.
    package func runOutputs(of output: Void) -> [(name: String, value: String)] { [("tag", tag)] }

    /// Tags HEAD and registers the undo; in a dry run only checks and notes what it would tag.
    /// - Throws: when the tag exists and `force` is false, or HEAD or git cannot be read or written.
    package func run(in step: StepContext) throws {
        let lane = step.lane
        let repository = try lane.repository()
        let head = try lane.headCommit(of: repository)
        let existing = try git { try repository.tag(named: tag) }
        if let existing, !force {
            throw ShiplaneError(
                "tag \(tag) exists",
                info: [("points at", existing.target.short)],
                suggestion: existing.target == head
                    ? "HEAD is already tagged \(tag): nothing to do, or bump again"
                    : "bump again, or pass force: true to move it"
            )
        }
        if lightweight && sign == true {
            throw SigningError(
                "a lightweight tag cannot be signed: only an annotated tag holds a signature",
                suggestion: "drop lightweight: true, or sign: true", category: .usage)
        }
        // git signs annotated tags only: tag.gpgSign leaves a lightweight tag as it is.
        let signing = lightweight ? nil : try step.objectSigning(.tag, sign, in: repository)
        let signed = signing.map { ", signed with the \($0.origin)" } ?? ""
        if step.isDryRun {
            // The real run tags the commit an earlier commit step makes, not today's HEAD.
            step.note((lane.state.dryRunMadeCommit
                ? "would tag the release commit (made on top of \(head.short)) as \(tag)"
                : "would tag \(head.short) as \(tag)") + signed)
            return
        }
        let tagger = lightweight ? nil : try git { try step.signatures([.committer], in: repository, for: "tag").first }
        // A tag may be pushed: a secret the run knows never goes into its message.
        let text = lightweight ? nil : lane.redactor.redact(message ?? "Release \(tag)")
        let description = existing == nil ? "delete tag \(tag)" : "move tag \(tag) back to \(existing?.target.short ?? "")"
        let effect = try step.record(TagWritten(name: tag, target: head.hex, object: nil, replaced: existing?.object.hex), description)
        let sign = signing.map { signing in { (text: String) throws -> String in try signing.sign(text) } }
        let created = try git { try repository.createTag(name: tag, target: head, message: text, tagger: tagger, force: force, sign: sign) }
        step.done(effect, TagWritten(name: tag, target: head.hex, object: created.object.hex, replaced: existing?.object.hex))
        step.note("\(tag) → \(head.short)" + (signing == nil ? "" : " (signed)"))
    }
}

/// Whether a tag exists.
package struct GitTagExists: Action {
    /// The action's name in steps and reports.
    package static let name = "gitTagExists"
    /// The tag's name.
    package var tag: String

    /// The tag's name.
    package var options: [StepOption] { [StepOption("tag", tag)] }

    /// Returns true when a local tag has that name.
    /// - Throws: `GitFailure` when the repository cannot be read.
    package func run(in step: StepContext) throws -> Bool {
        let repository = try step.lane.repository()
        let exists = try git { try repository.tag(named: tag) } != nil
        step.note(exists ? "exists" : "absent")
        return exists
    }
}

extension LaneContext {
    /// Tags HEAD (annotated unless `lightweight`); refuses an existing tag unless `force`.
    public func addGitTag(
        _ tag: String, message: String? = nil, lightweight: Bool = false, force: Bool = false, sign: Bool? = nil,
        file: String = #fileID, line: Int = #line
    ) throws {
        try run(AddGitTag(tag, message: message, lightweight: lightweight, force: force, sign: sign), file: file, line: line)
    }

    /// True when the tag exists locally.
    public func gitTagExists(_ tag: String, file: String = #fileID, line: Int = #line) throws -> Bool {
        try run(GitTagExists(tag: tag), file: file, line: line)
    }
}

extension AddGitTag: DocumentedAction {
    /// How `lane.addGitTag` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git",
        summary: "Tag HEAD, annotated by default; an existing tag is refused unless force",
        signature: "try lane.addGitTag(_ tag: String, message: String? = nil, lightweight: Bool = false, force: Bool = false, sign: Bool? = nil)",
        parameters: [
            .init(name: "tag", type: "String", defaultValue: nil, help: "the tag name, e.g. \"v\\(version)\""),
            .init(name: "message", type: "String?", defaultValue: "\"Release TAG\"", help: "the annotated tag's message"),
            .init(name: "lightweight", type: "Bool", defaultValue: "false", help: "a lightweight tag (no tagger, no message)"),
            .init(name: "force", type: "Bool", defaultValue: "false", help: "move an existing tag"),
            .init(name: "sign", type: "Bool?", defaultValue: "git config tag.gpgSign", help: "sign the annotated tag (SSH natively, OpenPGP with gpg, as gpg.format says)"),
        ],
        example: #"try lane.addGitTag("v\(version)")"#,
        dryRun: "checks the tag does not exist, says what it would tag", rollback: "deletes the tag if it still points where it was put"
    )
}

extension GitTagExists: DocumentedAction {
    /// How `lane.gitTagExists` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git", summary: "Whether a tag exists locally",
        signature: "try lane.gitTagExists(_ tag: String) -> Bool", parameters: [.init(name: "tag", type: "String", defaultValue: nil, help: "the tag name")],
        example: #"if try lane.gitTagExists("v2.0.0") { ... }"#, dryRun: "runs", rollback: "nothing to undo"
    )
}
