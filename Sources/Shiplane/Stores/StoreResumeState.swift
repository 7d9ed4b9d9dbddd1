import Foundation
internal import Git

/// Small records a store upload leaves on disk so that a re-run, in this process or another,
/// finds what the last run started (a Play edit has no list call to find it by).
///
/// Kept under the git folder (`.git/shiplane/stores/NAME.json`), so they never dirty the work
/// tree; outside a repository under `.shiplane/stores/` in the working directory.
package struct StoreResumeState: Sendable {
    package let folder: String

    package init(lane: LaneContext) {
        if let repository = try? lane.repository() {
            var gitFolder = repository.gitDirectory
            while gitFolder.hasSuffix("/") { gitFolder.removeLast() }
            folder = gitFolder + "/shiplane/stores"
        } else {
            folder = lane.workingDirectory + "/.shiplane/stores"
        }
    }

    package init(folder: String) {
        self.folder = folder
    }

    func read<Value: Decodable>(_ type: Value.Type, name: String) -> Value? {
        guard let data = FileManager.default.contents(atPath: path(name)) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }

    func write<Value: Encodable>(_ value: Value, name: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(value).write(to: URL(fileURLWithPath: path(name)), options: .atomic)
    }

    func remove(name: String) {
        try? FileManager.default.removeItem(atPath: path(name))
    }

    private func path(_ name: String) -> String {
        folder + "/" + name.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }.reduce(into: "") { $0.append($1) } + ".json"
    }
}
