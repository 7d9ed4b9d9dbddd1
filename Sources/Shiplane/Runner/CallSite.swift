/// Where in a lane file an action was called: `Lanes/Release.swift:14`.
public struct CallSite: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The file as `#fileID` gives it; lanes compile as module `Lanes`, so this is the path
    /// relative to the repository root (`Lanes/Release.swift`).
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }
}
