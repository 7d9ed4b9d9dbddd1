import Foundation

/// What an action tells about itself, declared beside its code. `shiplane actions`,
/// `shiplane action NAME`, their JSON and the README's actions table are made from it.
package struct ActionDocumentation: Sendable, Equatable {
    /// One parameter of the lane method that calls the action.
    package struct Parameter: Codable, Sendable, Equatable {
        /// The parameter's label, or its name when it has no label.
        package var name: String
        /// Its Swift type, as written in the signature.
        package var type: String
        /// Its default as shown to people; nil when it must be given.
        package var defaultValue: String?
        /// What it does, in a few words.
        package var help: String

        /// Creates the description of one parameter.
        package init(name: String, type: String, defaultValue: String?, help: String) {
            self.name = name
            self.type = type
            self.defaultValue = defaultValue
            self.help = help
        }
    }

    /// The feature it belongs to: Git, Versioning, Build, Changelog, Release, Notify.
    package var domain: String
    /// What the action does, in one line.
    package var summary: String
    /// How a lane calls it.
    package var signature: String
    /// Every parameter of the lane method, in order.
    package var parameters: [Parameter]
    /// A line of lane code that calls it.
    package var example: String
    /// What a dry run does with this action.
    package var dryRun: String
    /// What rollback undoes.
    package var rollback: String

    /// Creates the documentation an action declares beside its code.
    package init(
        domain: String, summary: String, signature: String, parameters: [Parameter], example: String,
        dryRun: String, rollback: String
    ) {
        self.domain = domain
        self.summary = summary
        self.signature = signature
        self.parameters = parameters
        self.example = example
        self.dryRun = dryRun
        self.rollback = rollback
    }
}

/// An action that documents itself; every built-in action is one.
package protocol DocumentedAction {
    /// The action's name, as in `Action.name`.
    static var name: String { get }
    /// What the catalog, `shiplane action NAME` and the README say about the action.
    static var documentation: ActionDocumentation { get }
}

/// An action as `shiplane actions` and `shiplane action NAME` describe it (and as their JSON reads).
package struct ActionDescription: Codable, Sendable, Equatable {
    /// One parameter of the lane method.
    package typealias Parameter = ActionDocumentation.Parameter

    /// The action's name (`bumpVersion`).
    package var name: String
    /// The feature it belongs to: Git, Versioning, Build, Changelog, Release, Notify.
    package var domain: String
    /// What it does, in one line.
    package var summary: String
    /// How a lane calls it.
    package var signature: String
    /// Every parameter of the lane method, in order.
    package var parameters: [Parameter]
    /// A line of lane code that calls it.
    package var example: String
    /// What a dry run does with it.
    package var dryRun: String
    /// What rollback undoes.
    package var rollback: String

    /// The description of `action`, from its name and its documentation.
    package init(_ action: any DocumentedAction.Type) {
        let documentation = action.documentation
        name = action.name
        domain = documentation.domain
        summary = documentation.summary
        signature = documentation.signature
        parameters = documentation.parameters
        example = documentation.example
        dryRun = documentation.dryRun
        rollback = documentation.rollback
    }
}

/// The built-in actions, in the order a release lane uses them: the one list of them.
package enum ActionCatalog {
    /// The built-in action types, in release order.
    package static var actions: [any DocumentedAction.Type] { Features.actions }

    /// The descriptions of the built-in actions, in release order.
    package static let all: [ActionDescription] = actions.map(ActionDescription.init)

    /// The built-in action with that name, compared case-insensitively; nil when there is none.
    package static func named(_ name: String) -> ActionDescription? {
        all.first { $0.name.lowercased() == name.lowercased() }
    }

    /// The README's actions table, made from the actions' own documentation.
    package static var markdownTable: String {
        var lines = ["| action | what it does | dry run | rollback |", "| --- | --- | --- | --- |"]
        for action in all {
            let labels = action.signatureParameters.map { "\($0.label):" }.joined()
            let cell = { (text: String) in text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ") }
            lines.append("| `\(action.name)(\(labels))` | \(cell(action.summary)) | \(cell(action.dryRun)) | \(cell(action.rollback)) |")
        }
        return lines.joined(separator: "\n")
    }
}

extension ActionDescription {
    /// The argument labels and parameter names of the first lane call in `signature`
    /// (`bumpVersion(_ bump: VersionBump, files: …)` gives `_ bump` and `files files`), or of the
    /// announcement target an announcer is reached by (`announce(…, to: [.googleChat(webhookURL: …)])`).
    package var signatureParameters: [(label: String, name: String)] {
        guard let call = signature.range(of: "lane.\(name)(") ?? signature.range(of: "[.\(name)(") else { return [] }
        return Self.parse(parameterList: String(signature[call.upperBound...]))
    }

    /// The label and name of each parameter in a Swift parameter list, up to its closing `)`.
    package static func parse(parameterList: String) -> [(label: String, name: String)] {
        var depth = 0
        var inString = false
        var current = ""
        var parts: [String] = []
        var previous: Character = " "
        for character in parameterList {
            defer { previous = character }
            if character == "\"" { inString.toggle() }
            if !inString, !(character == ">" && previous == "-") {
                if "([<{".contains(character) { depth += 1 }
                if ")]>}".contains(character) {
                    if depth == 0 { break }
                    depth -= 1
                }
                if character == ",", depth == 0 {
                    parts.append(current)
                    current = ""
                    continue
                }
            }
            current.append(character)
        }
        parts.append(current)
        return parts.compactMap { part in
            let declaration = part.split(separator: ":", maxSplits: 1).first.map(String.init)?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard !declaration.isEmpty else { return nil }
            let words = declaration.split(whereSeparator: \.isWhitespace).map(String.init)
            return (words[0], words.last ?? words[0])
        }
    }
}
