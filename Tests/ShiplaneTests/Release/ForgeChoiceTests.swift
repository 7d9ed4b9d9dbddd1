import Foundation
import Testing
@testable import Shiplane

@Suite("Forge choice for lane.release: argument, settings, origin, CI", .offThePool)
struct ForgeChoiceTests {
    private func choose(_ forge: ForgeTarget? = nil, settings: ForgeSettings = .init(), env environment: [String: String] = [:], origin: String?) throws -> ForgeChoice {
        try ForgeChoice.choose(explicit: forge, settings: settings, environment: environment, originURL: origin)
    }

    @Test(arguments: [
        ("https://github.com/acme/rocket.git", ForgeKind.github), ("git@github.com:acme/rocket.git", .github),
        ("https://gitlab.com/group/sub/rocket.git", .gitlab), ("ssh://git@altssh.gitlab.com:443/acme/rocket.git", .gitlab),
        ("https://codeberg.org/acme/rocket.git", .gitea), ("git@gitea.com:acme/rocket.git", .gitea),
    ])
    func knownHostsPickTheirForge(origin: String, kind: ForgeKind) throws {
        let choice = try choose(origin: origin)
        #expect(choice.forge.kind == kind)
        #expect(choice.reason.hasPrefix("the origin remote's host"))
    }

    @Test func ciVariablesPickTheForgeOfASelfHostedOrigin() throws {
        let origin = "https://git.corp.example/acme/rocket.git"
        #expect(try choose(env: ["GITLAB_CI": "true"], origin: origin) == ForgeChoice(forge: .gitlab(), reason: "GITLAB_CI"))
        // Gitea and Forgejo Actions set GITHUB_ACTIONS too: their own variable wins.
        #expect(try choose(env: ["GITEA_ACTIONS": "true", "GITHUB_ACTIONS": "true"], origin: origin).forge == .gitea())
        #expect(try choose(env: ["FORGEJO_TOKEN": "x", "GITHUB_ACTIONS": "true"], origin: origin) == ForgeChoice(forge: .gitea(), reason: "FORGEJO_TOKEN"))
        #expect(try choose(env: ["GITHUB_ACTIONS": "true"], origin: origin).forge == .github())
        // The origin's known host comes before the CI (a GitLab mirror of a GitHub project releases on GitHub).
        #expect(try choose(env: ["GITLAB_CI": "true"], origin: "https://github.com/acme/rocket.git").forge == .github())
    }

    @Test func settingsDeclareHostsOrTheForgeAndTheArgumentOverridesAll() throws {
        let hosts = ForgeSettings(url: "http://127.0.0.1:3000", hosts: ["git.corp.example": .gitea])
        let declared = try choose(settings: hosts, env: ["GITLAB_CI": "true"], origin: "git@git.corp.example:acme/rocket.git")
        // The server is the forge's to find (forge.url after an explicit server: argument, however
        // the forge was chosen: GiteaReleasePublisherTests, GiteaReleaseLaneTests).
        #expect(declared.forge == .gitea())
        #expect(declared.reason == "git.corp.example in forge.hosts of .shiplane.yml")
        #expect(try choose(settings: ForgeSettings(url: "https://git.corp"), env: ["GITLAB_CI": "true"], origin: nil).forge == .gitlab())
        #expect(ForgeSettings(url: "https://git.corp").server(for: .gitlab) == "https://git.corp")
        let forced = try choose(settings: ForgeSettings(kind: .gitlab), origin: "https://github.com/acme/rocket.git")
        #expect(forced == ForgeChoice(forge: .gitlab(), reason: "forge.type in .shiplane.yml"))
        let explicit = try choose(.gitlab(server: "https://gitlab.corp", project: "a/b"), settings: ForgeSettings(kind: .gitea), origin: nil)
        #expect(explicit == ForgeChoice(forge: .gitlab(server: "https://gitlab.corp", project: "a/b"), reason: "forge: argument"))
    }

    @Test func anUnrecognisedHostIsAUsageErrorThatSaysHowToDeclareIt() {
        #expect {
            _ = try choose(origin: "https://git.corp.example/acme/rocket.git")
        } throws: { error in
            guard let unknown = error as? ForgeUnknown else { return false }
            return unknown.category == .usage && unknown.message.contains("git.corp.example")
                && (unknown.suggestion ?? "").contains("forge:\n    hosts:\n      git.corp.example: gitlab")
                && (unknown.suggestion ?? "").contains(".gitlab(server:")
        }
        #expect(throws: ForgeUnknown.self) { try choose(origin: nil) }
    }

    @Test func theSettingsFileReadsForgeAndRefusesMistakes() throws {
        let settings = try ProjectSettings.parse("forge:\n  type: gitea\n  url: https://code.example.org\n  hosts:\n    Git.Corp.Example: gitlab\n", file: ".shiplane.yml")
        #expect(settings.forge == ForgeSettings(kind: .gitea, url: "https://code.example.org", hosts: ["git.corp.example": .gitlab]))
        let mistakes = [
            ("forge:\n  type: sourcehut\n", "use one of: github, gitlab, gitea, bitbucket"),
            ("forge:\n  url: code.example.org\n", "not an http or https URL"),
            ("forge:\n  hosts:\n    git.corp.example: svn\n", "use one of"),
            ("forge:\n  host: x\n", "did you mean `hosts`?"),
            ("forge:\n  hosts: [a]\n", "must be a mapping"),
        ]
        for (text, expected) in mistakes {
            #expect {
                _ = try ProjectSettings.parse(text, file: ".shiplane.yml")
            } throws: { error in
                let shown = allText(of: error)
                return shown.contains(expected) && shown.contains(".shiplane.yml:")
            }
        }
    }

    @Test func giteaLinksFollowGiteasPaths() throws {
        let codeberg = try #require(RemoteLinks(remoteURL: "git@codeberg.org:acme/rocket.git"))
        #expect(codeberg.host == .gitea)
        #expect(codeberg.commitURL("abc123") == "https://codeberg.org/acme/rocket/commit/abc123")
        #expect(codeberg.issueURL(7) == "https://codeberg.org/acme/rocket/issues/7")
        #expect(codeberg.compareURL(from: "v1.0.0", to: "v1.1.0") == "https://codeberg.org/acme/rocket/compare/v1.0.0...v1.1.0")
        #expect(codeberg.tagURL("v1.1.0") == "https://codeberg.org/acme/rocket/releases/tag/v1.1.0")
        let declared = try #require(RemoteLinks(remoteURL: "https://git.corp.example/acme/rocket.git", additionalHosts: ["git.corp.example": .gitea]))
        #expect(declared.commitURL("abc") == "https://git.corp.example/acme/rocket/commit/abc")
        #expect(RemoteLinks(remoteURL: "https://codeberg.org/a/b/c.git") == nil, "Gitea paths are owner/repo")
    }

    @Test func bitbucketIsRecognisedByItsHostAndPipelinesAndLinksToItsPages() throws {
        #expect(try choose(origin: "git@bitbucket.org:acme/rocket.git") == ForgeChoice(forge: .bitbucket(), reason: "the origin remote's host bitbucket.org"))
        #expect(try choose(env: ["BITBUCKET_BUILD_NUMBER": "42"], origin: "https://git.corp.example/acme/rocket.git")
                == ForgeChoice(forge: .bitbucket(), reason: "BITBUCKET_BUILD_NUMBER"))
        let settings = try ProjectSettings.parse("forge:\n  type: bitbucket\n", file: ".shiplane.yml")
        #expect(settings.forge.kind == .bitbucket)
        let links = try #require(RemoteLinks(remoteURL: "https://bitbucket.org/acme/rocket.git"))
        #expect(links.host == .bitbucket)
        #expect(links.commitURL("abc123") == "https://bitbucket.org/acme/rocket/commits/abc123")
        #expect(links.compareURL(from: "v1.0.0", to: "v1.1.0") == "https://bitbucket.org/acme/rocket/branches/compare/v1.1.0%0Dv1.0.0")
        #expect(links.issueURL(7) == "https://bitbucket.org/acme/rocket/issues/7")
        #expect(links.tagURL("v1.1.0") == "https://bitbucket.org/acme/rocket/src/v1.1.0")
        #expect(RemoteLinks(remoteURL: "https://bitbucket.org/acme/sub/rocket.git") == nil, "Bitbucket paths are workspace/repo_slug")
    }

    @Test func everyForgeIsRegisteredOnceWithItsOwnKindActionAndEffects() {
        let kinds = Forges.all.map { $0.kind }
        #expect(Set(kinds).count == kinds.count && kinds == ForgeKind.allCases)
        #expect(Set(Forges.all.map { $0.action.name }) == ["githubRelease", "gitlabRelease", "giteaRelease", "bitbucketRelease"])
        for forge in Forges.all {
            #expect(ForgeKind(rawValue: forge.kind.rawValue) == forge.kind)
            #expect(!forge.effects.isEmpty, "\(forge.displayName) declares its effects")
            for effect in forge.effects { #expect(Features.effects.contains { $0.kind == effect.kind }, "\(effect.kind) is registered") }
        }
        #expect(ForgeKind(rawValue: "sourcehut") == nil)
    }
}
