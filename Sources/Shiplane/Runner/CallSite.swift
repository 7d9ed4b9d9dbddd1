/// Where in a lane file an action was called: `Lanes/Release.swift:14`.
public struct CallSite: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The file as `#fileID` gives it; lanes compile as module `Lanes`, so this is the path
    /// relative to the repository root (`Lanes/Release.swift`).
    public var file: String
    /// The line number, from 1.
    public var line: Int

    /// Creates a call site; lanes get theirs from `#fileID` and `#line`.
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `file:line`.
    public var description: String { "\(file):\(line)" }
}

extension CallSite {
    /// The call site to show for an action called at `file:line`, or nil when the caller is
    /// Shiplane itself (a built-in command such as `shiplane bump` runs its steps as a lane):
    /// users are pointed at their lane files, never at Shiplane's sources.
    package static func inLane(file: String, line: Int) -> CallSite? {
        file.hasPrefix("ShiplaneCLI/") || file.hasPrefix("Shiplane/") ? nil : CallSite(file: file, line: line)
    }
}
