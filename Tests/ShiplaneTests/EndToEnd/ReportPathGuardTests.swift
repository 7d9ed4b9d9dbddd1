import Foundation
import Testing

/// `--report-json` and `--junit` go through the one check of every path Shiplane writes: never
/// through a link out of the repository (or out of the folder chosen), never a device, never one
/// file for both — a usage error (exit 2) before the first effect, with nothing changed.
@Suite("Report paths: links, devices and one file for both are refused before the run", .offThePool)
struct ReportPathGuardTests {
    enum Case: String, CaseIterable, Sendable {
        case untrackedLinkJSON = "--report-json through an untracked link out of the repository"
        case untrackedLinkJUnit = "--junit through an untracked link out of the repository"
        case committedLink = "--report-json through a committed link out of the repository"
        case danglingLink = "--junit through a link to a file not made yet outside"
        case linkInChosenFolder = "--report-json through a link out of the folder chosen outside the repository"
        case device = "--report-json /dev/full"
        case sameFile = "--report-json and --junit naming one file"
        case sameFileThroughALink = "--junit a link to the file --report-json names"
    }

    private func snapshot(_ repo: TemporaryRepository) throws -> [String] {
        [try repo.git("rev-parse", "HEAD"), try repo.git("show-ref"), try repo.git("status", "--porcelain"),
         try repo.git("ls-files", "-s"), repo.read("VERSION") ?? ""]
    }

    @Test(arguments: Case.allCases)
    func aReportPathIsRefusedBeforeAnyEffect(_ kind: Case) throws {
        let repo = try versionedRepository()
        let victim = repo.root + "/victim.txt"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        var options: [String] = []
        var says = ""
        switch kind {
        case .untrackedLinkJSON, .untrackedLinkJUnit:
            try FileManager.default.createSymbolicLink(atPath: repo.path + "/vict", withDestinationPath: "../victim.txt")
            try repo.write(".gitignore", "vict\n")
            try repo.git("add", ".gitignore")
            try repo.git("commit", "-q", "-m", "chore: ignore")
            options = [kind == .untrackedLinkJSON ? "--report-json" : "--junit", "vict"]
            says = "vict is a symbolic link to \(repo.root)/victim.txt, outside the repository"
        case .committedLink:
            try FileManager.default.createSymbolicLink(atPath: repo.path + "/vict", withDestinationPath: "../victim.txt")
            try repo.git("add", "vict")
            try repo.git("commit", "-q", "-m", "chore: a link")
            options = ["--report-json", "vict"]
            says = "outside the repository"
        case .danglingLink:
            try FileManager.default.createSymbolicLink(atPath: repo.path + "/made.xml", withDestinationPath: "../made-outside.xml")
            try repo.write(".gitignore", "made.xml\n")
            try repo.git("add", ".gitignore")
            try repo.git("commit", "-q", "-m", "chore: ignore")
            options = ["--junit", "made.xml"]
            says = "made.xml is a symbolic link to \(repo.root)/made-outside.xml, outside the repository"
        case .linkInChosenFolder:
            try FileManager.default.createDirectory(atPath: repo.root + "/reports", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: repo.root + "/reports/run.json", withDestinationPath: "../victim.txt")
            options = ["--report-json", repo.root + "/reports/run.json"]
            says = "is a symbolic link to \(repo.root)/victim.txt"
        case .device:
            options = ["--report-json", "/dev/full"]
            says = "/dev/full is a device, not a file"
        case .sameFile:
            options = ["--report-json", "report.out", "--junit", "./report.out"]
            says = "./report.out is the file --report-json writes too"
        case .sameFileThroughALink:
            try FileManager.default.createSymbolicLink(atPath: repo.root + "/alias.xml", withDestinationPath: repo.root + "/report.xml")
            options = ["--report-json", repo.root + "/report.xml", "--junit", repo.root + "/alias.xml"]
            says = "is the file --report-json writes too"
        }
        let before = try snapshot(repo)
        let result = try repo.shiplane(options + ["bump", "patch", "--commit", "--tag"])
        #expect(result.status == 2, "\(kind.rawValue): \(result.all)")
        #expect(result.stderr.contains(says), "\(kind.rawValue): \(result.all)")
        #expect(result.stderr.contains("nothing was run"), "\(result.all)")
        #expect(try snapshot(repo) == before, "\(kind.rawValue): no bump, no commit, no tag")
        #expect(String(decoding: FileManager.default.contents(atPath: victim) ?? Data(), as: UTF8.self) == "precious\n")
        #expect(!FileManager.default.fileExists(atPath: repo.root + "/made-outside.xml"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/report.out"))
        let type = (try? FileManager.default.attributesOfItem(atPath: "/dev/full"))?[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial, "/dev/full is still a device")
    }

    /// A report next to the repository, through no link, is written as before.
    @Test func aPlainReportPathStillWorks() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["--report-json", repo.root + "/run.json", "--junit", "junit.xml", "bump", "patch"])
        #expect(result.status == 0, "\(result.all)")
        #expect(FileManager.default.contents(atPath: repo.root + "/run.json")?.isEmpty == false)
        #expect(repo.read("junit.xml")?.contains("<testsuite") == true)
    }
}
