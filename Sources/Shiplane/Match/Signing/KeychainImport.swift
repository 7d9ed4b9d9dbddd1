import Foundation

/// What installing match's signing files on a Mac takes, as the commands fastlane's `setup_ci` and
/// match's `KeychainImporter` run: a temporary keychain for CI (created, unlocked, kept unlocked
/// for six hours, put first in the user's search list), the certificate and its key imported
/// with `codesign` allowed, the partition list set so `codesign` never prompts, and each
/// profile copied where Xcode looks for it, named by its UUID.
///
/// The plan is plain data so it is tested on any machine (`MatchSigningTests`); it is run only on
/// macOS (`run(with:)`). The keychain's password is made for the run (random, not a secret of
/// the team): `security` takes it as an argument, as it has no other way.
package struct KeychainImportPlan: Equatable, Sendable {
    package struct Command: Equatable, Sendable {
        package var executable: String
        package var arguments: [String]
    }

    /// The commands, in order.
    package var commands: [Command] = []
    /// Profiles to copy: from the scratch folder to where Xcode reads them.
    package var profileCopies: [(from: String, to: String)] = []

    package static func == (lhs: KeychainImportPlan, rhs: KeychainImportPlan) -> Bool {
        lhs.commands == rhs.commands && lhs.profileCopies.elementsEqual(rhs.profileCopies) { $0.from == $1.from && $0.to == $1.to }
    }

    /// The plan for `keychain` (a path; made when `create`), the keychains already searched
    /// (`security list-keychains -d user`, kept after it), the decrypted files, and `home`.
    package init(keychain: String, keychainPassword: String, create: Bool, searchList: [String],
                 certificate: String, privateKey: String, profiles: [(path: String, uuid: String, macOS: Bool)], home: String) {
        func security(_ arguments: String...) { commands.append(Command(executable: "/usr/bin/security", arguments: arguments)) }
        if create {
            security("create-keychain", "-p", keychainPassword, keychain)
            security("set-keychain-settings", "-lut", "21600", keychain)
        }
        security("unlock-keychain", "-p", keychainPassword, keychain)
        if !searchList.contains(keychain) {
            commands.append(Command(executable: "/usr/bin/security", arguments: ["list-keychains", "-d", "user", "-s", keychain] + searchList))
        }
        let allowed = ["-T", "/usr/bin/codesign", "-T", "/usr/bin/security", "-T", "/usr/bin/productbuild", "-T", "/usr/bin/productsign"]
        commands.append(Command(executable: "/usr/bin/security", arguments: ["import", certificate, "-k", keychain] + allowed))
        commands.append(Command(executable: "/usr/bin/security", arguments: ["import", privateKey, "-k", keychain, "-f", "openssl", "-t", "priv"] + allowed))
        security("set-key-partition-list", "-S", "apple-tool:,apple:,codesign:", "-s", "-k", keychainPassword, keychain)
        for profile in profiles {
            let ext = profile.macOS ? "provisionprofile" : "mobileprovision"
            // Xcode 16 reads UserData; earlier Xcodes read MobileDevice: both get the copy.
            profileCopies.append((profile.path, home + "/Library/Developer/Xcode/UserData/Provisioning Profiles/\(profile.uuid).\(ext)"))
            profileCopies.append((profile.path, home + "/Library/MobileDevice/Provisioning Profiles/\(profile.uuid).\(ext)"))
        }
    }

    /// Parses `security list-keychains -d user`'s output (quoted paths, one a line).
    package static func searchList(from output: String) -> [String] {
        output.split(whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }.filter { !$0.isEmpty }
    }

    #if os(macOS)
    /// Runs the plan with `runner` (macOS only); a command that fails stops it, named without its
    /// arguments (they hold the keychain's password).
    /// - Throws: `ShiplaneError` naming the failing `security` subcommand and what it said.
    package func run(with runner: any ProcessRunning, environment: [String: String]) async throws {
        for command in commands {
            let result = try await runner.run(
                ProcessInvocation(executable: command.executable, arguments: command.arguments, environment: environment), onLine: { _, _ in })
            guard result.exitCode == 0, !result.terminatedBySignal else {
                throw ShiplaneError("security \(command.arguments.first ?? "") failed: \(result.standardError.trimmingCharacters(in: .whitespacesAndNewlines))",
                                    suggestion: "check the keychain (security list-keychains) and run again")
            }
        }
        for copy in profileCopies {
            let folder = (copy.to as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: copy.to)
            try FileManager.default.copyItem(atPath: copy.from, toPath: copy.to)
        }
    }
    #endif
}
