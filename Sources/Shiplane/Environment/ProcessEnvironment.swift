import Foundation

/// This process's environment and folders, read with the C library where a cached lane's start
/// reads them.
///
/// The Swift runtime answers a process's first lookup of a protocol conformance for a type by
/// walking every conformance record of the program (about 12,000 in a bundle's static
/// executable; `perf record` of a bundle's no-op lane: a third of each process's own user time).
/// `FileManager.contentsOfDirectory` made one (`joined(separator:)` on the path) and
/// `ProcessInfo.environment` another; the dictionary of the environment still makes the first
/// `Hashable` lookup of the process, the one walk left in each process of a no-op lane.
package enum ProcessEnvironment {
    /// The whole environment, as `ProcessInfo.processInfo.environment` gives it: a variable named
    /// twice has its last value, bytes that are not UTF-8 are replaced, an entry without `=` is
    /// left out.
    package static func current() -> [String: String] {
        #if os(Linux)
        return variables(environ)
        #else
        return ProcessInfo.processInfo.environment
        #endif
    }

    /// The variables of a C environment block (`NAME=value` entries, a null pointer last).
    static func variables(_ block: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String: String] {
        var variables: [String: String] = [:]
        guard var entry = block else { return variables }
        while let text = entry.pointee {
            let length = strlen(text)
            text.withMemoryRebound(to: UInt8.self, capacity: length) { start in
                let bytes = UnsafeBufferPointer(start: start, count: length)
                if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                    let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self)
                    variables[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)...]), as: UTF8.self)
                }
            }
            entry += 1
        }
        return variables
    }

    /// The value of one variable (`getenv`), nil when it is not set.
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The names in `folder` (not `.` and `..`), in the order the system lists them, as
    /// `FileManager.contentsOfDirectory(atPath:)` gives them; nil when it cannot be read.
    package static func names(in folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
