import Foundation
import Testing
@testable import Shiplane

/// The look at git's configuration files that lets a run skip libgit2 when nothing could ask for
/// a signed commit or tag; whatever it cannot see through counts as asking.
@Suite("GitSigningSettingsScan: git's settings read through libgit2 only when they could ask to sign", .offThePool)
struct GitSigningSettingsScanTests {
    /// The machine's own /etc/gitconfig is read too: where it could ask, nothing here says no.
    static var systemCouldAsk: Bool {
        guard let data = FileManager.default.contents(atPath: "/etc/gitconfig") else { return false }
        let text = String(decoding: data, as: UTF8.self).lowercased()
        return text.contains("gpgsign") || text.contains("include")
    }

    @Test func onlyAFileNamingTheSettingOrAnotherFileAsks() throws {
        let folder = try TemporaryRepository()
        let environment = ["HOME": folder.home, "GIT_CONFIG_NOSYSTEM": "1"]
        let inside = folder.path + "/Sources/App"
        try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: true)
        let scan = { GitSigningSettingsScan.mayAskForSignatures(workingDirectory: inside, environment: environment) }
        #expect(scan() == Self.systemCouldAsk, "an identity, no signing setting")

        // The repository's config asks (any case, as git reads names).
        let config = folder.path + "/.git/config"
        let original = try String(contentsOfFile: config, encoding: .utf8)
        try (original + "[commit]\n\tgpgSign = true\n").write(toFile: config, atomically: true, encoding: .utf8)
        #expect(scan())
        try original.write(toFile: config, atomically: true, encoding: .utf8)

        // The user's files: the global one, the XDG one, and an include it cannot follow.
        try "[tag]\n\tGPGSIGN = false\n".write(toFile: folder.home + "/.gitconfig", atomically: true, encoding: .utf8)
        #expect(scan(), "a setting, whatever its value: libgit2 reads it")
        try "[include]\n\tpath = ~/signing.inc\n".write(toFile: folder.home + "/.gitconfig", atomically: true, encoding: .utf8)
        #expect(scan())
        try FileManager.default.removeItem(atPath: folder.home + "/.gitconfig")
        try FileManager.default.createDirectory(atPath: folder.home + "/.config/git", withIntermediateDirectories: true)
        try "[includeIf \"gitdir:~/work/\"]\n\tpath = work.inc\n".write(toFile: folder.home + "/.config/git/config", atomically: true, encoding: .utf8)
        #expect(scan())
        try FileManager.default.removeItem(atPath: folder.home + "/.config/git/config")
        #expect(scan() == Self.systemCouldAsk)

        // Variables that point git at other settings.
        for variable in ["GIT_DIR", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"] {
            var other = environment
            other[variable] = "x"
            #expect(GitSigningSettingsScan.mayAskForSignatures(workingDirectory: inside, environment: other), "\(variable)")
        }
    }

    @Test func aLinkedWorkTreeOrAnUnknownHomeIsLeftToLibgit2() throws {
        let folder = try TemporaryRepository()
        let environment = ["HOME": folder.home]
        let linked = folder.root + "/linked"
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
        try "gitdir: \(folder.path)/.git/worktrees/linked\n".write(toFile: linked + "/.git", atomically: true, encoding: .utf8)
        #expect(GitSigningSettingsScan.mayAskForSignatures(workingDirectory: linked, environment: environment))
        #expect(GitSigningSettingsScan.mayAskForSignatures(workingDirectory: folder.path, environment: [:]), "no HOME: the user's files are unknown")
    }
}
