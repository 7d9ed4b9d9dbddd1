import Foundation
import Shiplane

/// Renders an error and its causes as an indented tree, the way a person reads a failure.
///
///     error: lane release failed
///     └─ sh failed at Lanes/Release.swift:14
///        └─ `swift build -c release` exited with code 1
///             exit code: 1
///     hint: ...
package enum ErrorTree {
    package static func lines(for error: any Error) -> [String] {
        var output: [String] = []
        let root = node(error)
        output.append("error: \(root.message)")
        appendInfo(root.info, indent: "  ", to: &output)
        var hints: [String] = root.suggestion.map { [$0] } ?? []
        appendChildren(root.children, prefix: "", to: &output, hints: &hints)
        if ErrorCategory.folded(error) == .defect {
            output.append("This is a defect, not a mistake in how Shiplane was called: when it is in Shiplane's own code, please report it with the command you ran and this output.")
        }
        for hint in hints.uniqued() { output.append("hint: \(hint)") }
        return output
    }

    struct Node {
        var message: String
        var info: [(key: String, value: String)]
        var suggestion: String?
        var children: [any Error]
        var isBug: Bool
    }

    static func node(_ error: any Error) -> Node {
        if let reportable = error as? any ReportableError {
            return Node(
                message: reportable.message, info: reportable.info, suggestion: reportable.suggestion,
                children: reportable.underlyingErrors, isBug: reportable.isBug
            )
        }
        if error is CancellationError {
            return Node(message: "interrupted", info: [], suggestion: nil, children: [], isBug: false)
        }
        // Another library's error in words, without its Swift type's name.
        if let words = errorInWords(error) {
            return Node(message: words, info: [], suggestion: nil, children: [], isBug: false)
        }
        return Node(message: "\(type(of: error)): \(describe(error))", info: [], suggestion: nil, children: [], isBug: false)
    }

    private static func appendChildren(_ children: [any Error], prefix: String, to output: inout [String], hints: inout [String]) {
        for (index, child) in children.enumerated() {
            let last = index == children.count - 1
            let node = node(child)
            let messageLines = node.message.split(separator: "\n", omittingEmptySubsequences: false)
            output.append(prefix + (last ? "└─ " : "├─ ") + (messageLines.first.map(String.init) ?? ""))
            let childPrefix = prefix + (last ? "   " : "│  ")
            for extra in messageLines.dropFirst() { output.append(childPrefix + String(extra)) }
            appendInfo(node.info, indent: childPrefix + "  ", to: &output)
            if let suggestion = node.suggestion { hints.append(suggestion) }
            appendChildren(node.children, prefix: childPrefix, to: &output, hints: &hints)
        }
    }

    private static func appendInfo(_ info: [(key: String, value: String)], indent: String, to output: inout [String]) {
        for (key, value) in info {
            let valueLines = value.split(separator: "\n", omittingEmptySubsequences: false)
            if valueLines.count <= 1 {
                output.append("\(indent)\(key): \(value)")
            } else {
                output.append("\(indent)\(key):")
                for line in valueLines { output.append("\(indent)  \(line)") }
            }
        }
    }
}

extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
