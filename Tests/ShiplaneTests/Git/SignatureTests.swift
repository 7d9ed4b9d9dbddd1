import Foundation
import Testing
@testable import Git

@Suite("Signatures from the environment and git config, as git resolves them", .offThePool)
struct SignatureTests {
    /// Date forms git accepts; git itself is the oracle for the seconds and the offset.
    static let dateForms = [
        "@1112911993 +0200", "1112911993 +0200", "@1112911993", "1112911993 -0130",
        "2005-04-07T22:13:13", "2005-04-07 22:13:13 +0200", "2005-04-07T22:13:13Z",
        "2005-04-07T22:13:13+02:00", "2005-04-07T22:13:13.5+0200", "2005-04-07 22:13",
        "Thu, 07 Apr 2005 22:13:13 +0200", "07 Apr 2005 22:13:13 -0130",
    ]

    @Test(arguments: dateForms)
    func environmentDatesMatchGit(_ form: String) throws {
        let repo = try TemporaryRepository()
        let environment = ["GIT_AUTHOR_DATE": form, "GIT_COMMITTER_DATE": form]
        try GitFixture.git(repo, ["commit", "-q", "--allow-empty", "-m", "dated"], environment: environment)
        let expected = try repo.git("log", "-1", "--format=%ad", "--date=raw")

        let signature = try Repository.open(repo.path).signature(environment: environment, role: .author)
        let offset = signature.timeZoneOffsetMinutes
        let zone = String(format: "%@%02d%02d", offset < 0 ? "-" : "+", abs(offset) / 60, abs(offset) % 60)
        #expect("\(Int(signature.date.timeIntervalSince1970)) \(zone)" == expected)
    }

    @Test func refusesADateGitRefuses() throws {
        let repo = try TemporaryRepository()
        for form in ["garbage", "2005-04-07", "@12ab"] {
            let error = #expect(throws: GitError.self) {
                try Repository.open(repo.path).signature(environment: ["GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@b", "GIT_AUTHOR_DATE": form], role: .author)
            }
            #expect(error?.code == .invalid)
        }
    }

    @Test func environmentWinsOverConfigPerRole() throws {
        let repo = try TemporaryRepository()
        try repo.git("config", "user.name", "Config Name")
        try repo.git("config", "user.email", "config@example.com")
        let repository = try Repository.open(repo.path)
        let environment = ["GIT_AUTHOR_NAME": "Env Author", "GIT_COMMITTER_EMAIL": "env-committer@example.com"]

        let author = try repository.signature(environment: environment, role: .author)
        #expect(author.name == "Env Author" && author.email == "config@example.com")
        let committer = try repository.signature(environment: environment, role: .committer)
        #expect(committer.name == "Config Name" && committer.email == "env-committer@example.com")

        // git agrees on the same inputs.
        try GitFixture.git(
            repo, ["commit", "-q", "--allow-empty", "-m", "who"], environment: environment,
            removing: ["GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME"])
        #expect(try repo.git("log", "-1", "--format=%an|%ae|%cn|%ce")
            == "\(author.name)|\(author.email)|\(committer.name)|\(committer.email)")
    }

    @Test func dateWithoutVariableIsNowInTheLocalZone() throws {
        let repo = try TemporaryRepository()
        let now = Date(timeIntervalSince1970: 1_700_000_000.75)
        let zone = try #require(TimeZone(secondsFromGMT: 3600 * 5 + 1800))
        let signature = try Repository.open(repo.path).signature(
            environment: ["GIT_COMMITTER_NAME": "C", "GIT_COMMITTER_EMAIL": "c@example.com"], role: .committer, now: now, timeZone: zone)
        #expect(signature.date == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(signature.timeZoneOffsetMinutes == 330)
    }

    @Test func missingIdentityTellsWhatToSet() throws {
        let repo = try TemporaryRepository()
        // Empty local values hide any global identity of the machine running the tests.
        try repo.git("config", "user.name", "")
        try repo.git("config", "user.email", "")
        let error = #expect(throws: GitError.self) {
            try Repository.open(repo.path).signature(environment: [:], role: .author)
        }
        #expect(error?.code == .missingIdentity)
        #expect(error?.message.contains("user.name") == true)
        #expect(error?.message.contains("GIT_AUTHOR_NAME") == true)
    }
}
