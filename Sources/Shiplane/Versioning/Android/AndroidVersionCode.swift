/// Google Play's rule for `versionCode`: a positive integer, at most 2,100,000,000.
enum AndroidVersionCode {
    /// The largest `versionCode` Google Play accepts.
    static let maximum = 2_100_000_000

    /// Refuses a build number that cannot be a `versionCode`.
    /// - Throws: `VersionFileError.invalidValue` saying why.
    static func check(_ build: String, format: String) throws {
        guard build.allSatisfy(\.isASCIIDigit), let value = Int(build), value >= 1, value <= maximum else {
            throw VersionFileError(
                .invalidValue,
                "'\(build)' cannot be written to \(format) as versionCode: Google Play takes a whole number from 1 to 2100000000",
                suggestion: "Use an integer build number (incrementBuildNumber(.next), .value(46), .commitCount, .fromStores)"
            )
        }
    }
}
