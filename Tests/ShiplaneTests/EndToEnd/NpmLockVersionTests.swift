import Foundation
import Testing

/// package-lock.json follows a bump as `npm version` changes it (issue 38, from the app corpus:
/// mattermost-mobile's bump failed on npm's offline refresh and rolled back): the top `version`
/// and `packages[""].version` take the new version in place, every other byte stays, and no
/// npm runs.
@Suite("Lock files: package-lock.json's version fields edited in place", .offThePool)
struct NpmLockVersionTests {
    static let lock = """
        {
          "name": "mobile",
          "version": "2.43.0",
          "lockfileVersion": 3,
          "requires": true,
          "packages": {
            "": {
              "name": "mobile",
              "version": "2.43.0",
              "hasInstallScript": true,
              "dependencies": {
                "left-pad": "2.43.0"
              }
            },
            "node_modules/left-pad": {
              "version": "2.43.0",
              "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-2.43.0.tgz"
            }
          }
        }

        """

    /// A repository with the package and an `npm` on PATH that fails the test if it runs.
    static func repository() throws -> (TemporaryRepository, [String: String]) {
        let repo = try TemporaryRepository()
        try repo.write("package.json", "{\n  \"name\": \"mobile\",\n  \"version\": \"2.43.0\",\n  \"dependencies\": {\n    \"left-pad\": \"2.43.0\"\n  }\n}\n")
        try repo.write("package-lock.json", lock)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: mobile")
        let bin = repo.root + "/fake-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho 'npm must not run' >&2\nexit 1\n".write(toFile: bin + "/npm", atomically: true, encoding: .utf8)
        chmod(bin + "/npm", 0o755)
        return (repo, ["PATH": bin + ":/usr/bin:/bin"])
    }

    @Test func aBumpSetsTheTwoVersionFieldsAndNothingElse() throws {
        let (repo, environment) = try Self.repository()
        let result = try repo.shiplane(["bump", "patch", "--commit"], environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD") == "package-lock.json\npackage.json")
        #expect(repo.read("package-lock.json") == Self.lock.replacingOccurrences(of: "  \"version\": \"2.43.0\",\n  \"lockfileVersion\"", with: "  \"version\": \"2.43.1\",\n  \"lockfileVersion\"")
            .replacingOccurrences(of: "\"name\": \"mobile\",\n      \"version\": \"2.43.0\"", with: "\"name\": \"mobile\",\n      \"version\": \"2.43.1\""))
        let lines = try repo.git("show", "--format=", "-U0", "HEAD", "--", "package-lock.json").split(separator: "\n")
            .filter { ($0.hasPrefix("+") || $0.hasPrefix("-")) && !$0.hasPrefix("+++") && !$0.hasPrefix("---") }
        #expect(lines.count == 4, "two lines changed: \(lines)")
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }

    /// An npm workspace: the member's entry in the root lock, `packages["packages/foo"].version`,
    /// follows the member's bump; the root's version and the member's link entry stay.
    @Test func aWorkspaceMembersEntryInTheRootLockFollowsItsBump() throws {
        let (repo, environment) = try Self.repository()
        try repo.write("package.json", "{\n  \"name\": \"mobile\",\n  \"version\": \"2.43.0\",\n  \"workspaces\": [\"packages/*\"]\n}\n")
        try repo.write("packages/foo/package.json", "{\n  \"name\": \"foo\",\n  \"version\": \"1.4.0\"\n}\n")
        let lock = """
            {
              "name": "mobile",
              "version": "2.43.0",
              "lockfileVersion": 3,
              "requires": true,
              "packages": {
                "": {
                  "name": "mobile",
                  "version": "2.43.0",
                  "workspaces": [
                    "packages/*"
                  ]
                },
                "node_modules/foo": {
                  "resolved": "packages/foo",
                  "link": true
                },
                "packages/foo": {
                  "name": "foo",
                  "version": "1.4.0"
                }
              }
            }

            """
        try repo.write("package-lock.json", lock)
        try repo.write(".shiplane.yml", "packages:\n  - name: foo\n    path: packages/foo\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: foo")
        let result = try repo.shiplane(["bump", "patch", "--package", "foo", "--commit"], environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD") == "package-lock.json\npackages/foo/package.json")
        #expect(repo.read("package-lock.json") == lock.replacingOccurrences(of: "\"name\": \"foo\",\n      \"version\": \"1.4.0\"", with: "\"name\": \"foo\",\n      \"version\": \"1.4.1\""))
        #expect(repo.read("package-lock.json") != lock)
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }

    @Test func aDryRunWritesNothing() throws {
        let (repo, environment) = try Self.repository()
        let result = try repo.shiplane(["bump", "patch", "--commit", "--dry-run"], environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }
}
