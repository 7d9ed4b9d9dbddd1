import Foundation

extension StepContext {
    /// Refuses to write `path` when it lies in the repository as written but a symbolic link
    /// takes it outside (see `LinkGuard`). Call it before reading or writing anything.
    /// - Throws: `LinkLeavesRepository`, naming the file as `shownAs`.
    public func refuseLinkLeavingRepository(_ path: String, shownAs: String) throws {
        if let destination = LinkGuard.destinationOutside(lane.workingDirectory, of: path) {
            throw LinkLeavesRepository(path: shownAs, destination: destination)
        }
    }
}
