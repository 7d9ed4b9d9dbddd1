import Foundation
import Testing
@testable import Shiplane

@Suite("Deterministic archives", .offThePool)
struct ArchiveTests {
    /// A small tree with an executable, a nested folder, a long path and a binary file.
    private func makeTree(_ root: URL) throws {
        try writeFile(root, "README.md", "# Rocket\n")
        let tool = try writeFile(root, "bin/rocket", "#!/bin/sh\necho hi\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: tool)
        try writeFile(root, "lib/z.txt", "z")
        try writeFile(root, "lib/a.txt", "a")
        let deep = String(repeating: "deep-folder-name/", count: 6) + "file-with-a-rather-long-name.txt"
        try writeFile(root, deep, "deep")
        try Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) }).write(to: root.appendingPathComponent("lib/blob.bin"))
    }

    private func touchAll(_ root: URL, seconds: TimeInterval) throws {
        for path in FileManager.default.subpaths(atPath: root.path) ?? [] {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)],
                                                  ofItemAtPath: root.appendingPathComponent(path).path)
        }
    }

    @Test func tarGzIsByteIdenticalAndValid() async throws {
        try await withTemporaryDirectory { folder in
            let tree = folder.appendingPathComponent("tree")
            try makeTree(tree)
            let first = folder.appendingPathComponent("one.tar.gz")
            let second = folder.appendingPathComponent("two.tar.gz")
            try TarGzArchive.write(directory: tree, prefix: "rocket-1.0", to: first)
            try touchAll(tree, seconds: 1_000_000)
            try TarGzArchive.write(directory: tree, prefix: "rocket-1.0", to: second)
            #expect(try Data(contentsOf: first) == Data(contentsOf: second))

            #expect(try runTool(["gzip", "-t", first.path]).status == 0)
            let listing = try runTool(["tar", "-tvzf", first.path])
            #expect(listing.status == 0)
            let lines = listing.output.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("-rwxr-xr-x 0/0") && $0.hasSuffix("rocket-1.0/bin/rocket") })
            #expect(lines.contains { $0.hasPrefix("-rw-r--r-- 0/0") && $0.hasSuffix("rocket-1.0/README.md") })
            #expect(lines.contains { $0.hasPrefix("drwxr-xr-x 0/0") && $0.hasSuffix("rocket-1.0/lib/") })
            #expect(lines.allSatisfy { $0.contains("1970-01-01") })
            let names = try runTool(["tar", "-tzf", first.path]).output.split(separator: "\n").map(String.init)
            let stripped = names.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            #expect(stripped.count == 15)
            #expect(stripped == stripped.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            #expect(names.first == "rocket-1.0/")

            let out = folder.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            #expect(try runTool(["tar", "-xzf", first.path, "-C", out.path]).status == 0)
            #expect(try runTool(["diff", "-r", tree.path, out.appendingPathComponent("rocket-1.0").path]).status == 0)
            // gzip header: no name flag, mtime 0.
            let header = try Data(contentsOf: first).prefix(10)
            #expect(Array(header) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
        }
    }

    @Test func sourceDateEpochIsUsedAsTheMtime() async throws {
        try await withTemporaryDirectory { folder in
            try writeFile(folder, "tree/a.txt", "a")
            let archive = folder.appendingPathComponent("a.tar.gz")
            try TarGzArchive.write(directory: folder.appendingPathComponent("tree"), to: archive, modificationTime: 1_700_000_000)
            let listing = try runTool(["env", "TZ=UTC", "tar", "-tvzf", archive.path]).output
            #expect(listing.contains("2023-11-14 22:13"))
        }
    }

    @Test(arguments: [ZipArchive.Compression.deflated, .stored])
    func zipIsByteIdenticalAndValid(compression: ZipArchive.Compression) async throws {
        try await withTemporaryDirectory { folder in
            let tree = folder.appendingPathComponent("tree")
            try makeTree(tree)
            let first = folder.appendingPathComponent("one.zip")
            let second = folder.appendingPathComponent("two.zip")
            try ZipArchive.write(directory: tree, to: first, compression: compression)
            try touchAll(tree, seconds: 2_000_000)
            try ZipArchive.write(directory: tree, to: second, compression: compression)
            #expect(try Data(contentsOf: first) == Data(contentsOf: second))

            #expect(try runTool(["unzip", "-tq", first.path]).status == 0)
            let listing = try runTool(["unzip", "-l", first.path])
            #expect(listing.status == 0)
            #expect(listing.output.contains("1980-01-01 00:00   bin/rocket"))
            let zipinfo = try runTool(["unzip", "-Z", first.path]).output
            #expect(zipinfo.contains("-rwxr-xr-x") && zipinfo.contains("bin/rocket"))
            let out = folder.appendingPathComponent("out")
            #expect(try runTool(["unzip", "-q", first.path, "-d", out.path]).status == 0)
            #expect(try runTool(["diff", "-r", tree.path, out.path]).status == 0)
            #expect(FileManager.default.isExecutableFile(atPath: out.appendingPathComponent("bin/rocket").path))
        }
    }

    @Test func entriesAreSortedByByteOrder() throws {
        let entries = ArchiveEntry.sorted([
            .init(name: "b", kind: .directory), .init(name: "B", kind: .directory), .init(name: "a/c", kind: .directory),
            .init(name: "a", kind: .directory),
        ])
        #expect(entries.map(\.name) == ["B", "a", "a/c", "b"])
    }

    @Test func symlinksAreRefused() async throws {
        try await withTemporaryDirectory { folder in
            let tree = folder.appendingPathComponent("tree")
            try writeFile(tree, "a.txt", "a")
            try FileManager.default.createSymbolicLink(atPath: tree.appendingPathComponent("link").path, withDestinationPath: "a.txt")
            #expect(throws: AggregateError.self) { try ArchiveEntry.collect(directory: tree) }
        }
    }

    @Test func ustarSplitsLongNamesAndRefusesImpossibleOnes() throws {
        let long = String(repeating: "d/", count: 60) + "file.txt"
        let (prefix, name) = try TarGzArchive.splitName(long)
        #expect(prefix + "/" + name == long)
        #expect(prefix.utf8.count <= 155 && name.utf8.count <= 100)
        #expect(throws: ShiplaneError.self) { try TarGzArchive.splitName(String(repeating: "x", count: 120)) }
    }
}
