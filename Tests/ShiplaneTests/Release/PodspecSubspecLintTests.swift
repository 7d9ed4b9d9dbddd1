import Foundation
import Testing
@testable import Shiplane

/// Podspecs shaped like real pods with subspecs, written for these tests.
enum SubspecPods {
    /// Shaped like Firebase's umbrella pod: a default subspec, an umbrella depending on a core-only
    /// subspec, product subspecs that each depend on it and on a pod of their own, per-platform
    /// dependencies.
    static let flare = """
    Pod::Spec.new do |s|
      s.name             = 'Flare'
      s.version          = '10.25.0'
      s.summary          = 'Flare for Apple platforms: analytics, crash reports and messaging.'
      s.description      = 'Flare brings analytics, crash reports and messaging to apps on Apple platforms, one subspec for each product.'
      s.homepage         = 'https://flare.example.com'
      s.license          = { :type => 'Apache-2.0', :file => 'LICENSE' }
      s.authors          = 'Acme Inc.'
      s.source           = { :git => 'https://github.com/acme/flare-ios-sdk.git', :tag => s.version.to_s }
      s.ios.deployment_target = '11.0'
      s.osx.deployment_target = '10.13'
      s.tvos.deployment_target = '12.0'
      s.cocoapods_version = '>= 1.12.0'
      s.swift_version = '5.9'
      s.default_subspec = 'Core'

      s.subspec 'Core' do |ss|
        ss.dependency 'Flare/CoreOnly'
        ss.ios.dependency 'FlareAnalytics', '~> 10.25.0'
        ss.osx.dependency 'FlareAnalytics', '~> 10.25.0'
        ss.tvos.dependency 'FlareAnalytics', '~> 10.25.0'
      end

      s.subspec 'CoreOnly' do |ss|
        ss.dependency 'FlareCore', '10.25.0'
        ss.source_files = 'Flare/Sources/Flare.h'
        ss.preserve_paths = 'Flare/Sources/module.modulemap'
        ss.user_target_xcconfig = { 'HEADER_SEARCH_PATHS' => '$(inherited) "${PODS_ROOT}/Flare/Flare/Sources"' }
      end

      s.subspec 'Crashlytics' do |ss|
        ss.dependency 'Flare/CoreOnly'
        ss.dependency 'FlareCrashlytics', '~> 10.25.0'
      end

      s.subspec 'Messaging' do |ss|
        ss.ios.deployment_target = '11.0'
        ss.dependency 'Flare/CoreOnly'
        ss.dependency 'FlareMessaging', '~> 10.25.0'
      end
    end

    """

    /// Shaped like SDWebImage: a default Core subspec with the sources, a MapKit subspec on fewer
    /// platforms depending on it.
    static let pixels = """
    Pod::Spec.new do |s|
      s.name = 'Pixels'
      s.version = '5.19.1'
      s.platform = :ios, '9.0'
      s.ios.deployment_target = '9.0'
      s.tvos.deployment_target = '9.0'
      s.osx.deployment_target = '10.11'
      s.watchos.deployment_target = '2.0'
      s.license = 'MIT'
      s.summary = 'Asynchronous image downloader with cache support with an UIImageView category.'
      s.homepage = 'https://github.com/acme/Pixels'
      s.author = { 'Acme' => 'pixels@acme.test' }
      s.source = { :git => 'https://github.com/acme/Pixels.git', :tag => s.version.to_s }
      s.description = 'This library provides a category for UIImageView with support for remote images coming from the web. It provides an UIImageView category adding web image and cache management to the Cocoa Touch framework.'
      s.requires_arc = true
      s.framework = 'ImageIO'
      s.default_subspec = 'Core'

      s.subspec 'Core' do |core|
        core.source_files = 'Pixels/Core/*.{h,m}', 'WebImage/Pixels.h', 'Pixels/Private/*.{h,m}'
        core.exclude_files = 'Pixels/MapKit/*.{h,m}'
        core.private_header_files = 'Pixels/Private/*.h'
      end

      s.subspec 'MapKit' do |mk|
        mk.osx.deployment_target = '10.11'
        mk.ios.deployment_target = '9.0'
        mk.tvos.deployment_target = '9.0'
        mk.source_files = 'Pixels/MapKit/*.{h,m}'
        mk.framework = 'MapKit'
        mk.dependency 'Pixels/Core'
      end
    end

    """

    /// Shaped like a networking pod in Alamofire's manner grown subspecs: nested extension
    /// subspecs that depend on a sibling of their parent, a test spec depending on a subspec.
    static let wire = """
    Pod::Spec.new do |s|
      s.name = 'Wire'
      s.version = '5.9.1'
      s.license = 'MIT'
      s.summary = 'Elegant HTTP Networking in Swift'
      s.homepage = 'https://github.com/acme/Wire'
      s.authors = { 'Acme Software Foundation' => 'info@acme.test' }
      s.source = { :git => 'https://github.com/acme/Wire.git', :tag => s.version }
      s.documentation_url = 'https://acme.test/Wire/'
      s.ios.deployment_target = '10.0'
      s.osx.deployment_target = '10.12'
      s.swift_versions = ['5']
      s.default_subspecs = 'Core', 'Extensions'

      s.subspec 'Core' do |core|
        core.source_files = 'Source/Core/*.swift'
        core.frameworks = 'CFNetwork'
      end

      s.subspec 'Extensions' do |ext|
        ext.default_subspec = 'Combine'
        ext.subspec 'Combine' do |combine|
          combine.source_files = 'Source/Extensions/Combine/*.swift'
          combine.dependency 'Wire/Core'
        end
        ext.subspec 'Concurrency' do |concurrency|
          concurrency.source_files = 'Source/Extensions/Concurrency/*.swift'
          concurrency.dependency 'Wire/Extensions/Combine'
        end
      end

      s.test_spec 'Tests' do |tests|
        tests.source_files = 'Tests/*.swift'
        tests.dependency 'Wire/Extensions/Concurrency'
      end
    end

    """
}

/// `pushPodspec`'s checks of subspecs, on Ruby podspecs read through `ruby` and on their JSON form.
@Suite("CocoaPods: subspecs checked as pod spec lint and trunk check them, before anything is sent", .offThePool)
struct PodspecSubspecLintTests {
    /// The problems of `source` (a Ruby podspec named `name`.podspec, read with ruby), and those
    /// of the same spec as a `.podspec.json`, which must be the same.
    private func problems(_ name: String, _ source: String, version: String) async throws -> [String] {
        let folder = try TemporaryRepository(commit: false)
        try folder.write("\(name).podspec", source)
        let spec = try await Podspec.read(folder.path + "/\(name).podspec", shown: "\(name).podspec", environment: ProcessInfo.processInfo.environment,
                                          processRunner: LiveProcessRunner())
        let fromRuby = spec.problems(releaseVersion: version, shown: "\(name).podspec")
        try folder.write("\(name).podspec.json", String(decoding: spec.json, as: UTF8.self))
        let json = try await Podspec.read(folder.path + "/\(name).podspec.json", shown: "\(name).podspec", environment: [:], processRunner: LiveProcessRunner())
        #expect(json.problems(releaseVersion: version, shown: "\(name).podspec") == fromRuby, "the JSON form says the same")
        return fromRuby
    }

    private func expect(_ problems: [String], _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for text in expected {
            #expect(problems.contains { $0.contains(text) }, "\(text)\nin \(problems)", sourceLocation: sourceLocation)
        }
    }

    @Test func realShapedPodsWithSubspecsHaveNoProblems() async throws {
        #expect(try await problems("Flare", SubspecPods.flare, version: "10.25.0") == [])
        #expect(try await problems("Pixels", SubspecPods.pixels, version: "5.19.1") == [])
        #expect(try await problems("Wire", SubspecPods.wire, version: "5.9.1") == [])
    }

    /// A dependency on `Pod/Sub` names a library subspec that exists, at any depth.
    @Test func aDependencyOnASubspecThatDoesNotExist() async throws {
        let flare = try await problems("Flare", SubspecPods.flare.replacingOccurrences(of: "ss.dependency 'Flare/CoreOnly'\n    ss.dependency 'FlareCrashlytics'",
                                                                                          with: "ss.dependency 'Flare/Analytics'\n    ss.dependency 'FlareCrashlytics'"), version: "10.25.0")
        expect(flare, ["Flare.podspec: Flare/Crashlytics depends on Flare/Analytics, which is not a subspec of Flare (its subspecs: Flare/Core, Flare/CoreOnly, Flare/Crashlytics, Flare/Messaging): fix the name or add the subspec"])
        #expect(flare.count == 1, "\(flare)")
        let platform = try await problems("Flare", SubspecPods.flare.replacingOccurrences(of: "ss.tvos.dependency 'FlareAnalytics'", with: "ss.tvos.dependency 'Flare/TV'"), version: "10.25.0")
        expect(platform, ["Flare/Core depends on Flare/TV (tvos), which is not a subspec of Flare"])
        let nested = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "'Wire/Extensions/Combine'", with: "'Wire/Combine'"), version: "5.9.1")
        expect(nested, ["Wire/Extensions/Concurrency depends on Wire/Combine, which is not a subspec of Wire (its subspecs: Wire/Core, Wire/Extensions, Wire/Extensions/Combine, Wire/Extensions/Concurrency)"])
        let onTests = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "combine.dependency 'Wire/Core'", with: "combine.dependency 'Wire/Tests'"), version: "5.9.1")
        expect(onTests, ["Wire/Extensions/Combine depends on Wire/Tests, which is not a subspec of Wire"])
    }

    /// A subspec may not depend on itself or on one of its parents (CocoaPods' DSL refuses both).
    @Test func aDependencyOnItselfOrItsParent() async throws {
        let wire = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "combine.dependency 'Wire/Core'", with: "combine.dependency 'Wire/Extensions'")
            .replacingOccurrences(of: "concurrency.dependency 'Wire/Extensions/Combine'", with: "concurrency.dependency 'Wire/Extensions/Concurrency'"), version: "5.9.1")
        expect(wire, ["Wire.podspec: Wire/Extensions/Combine depends on Wire/Extensions, one of its parents; a subspec already has its parents' files: remove that dependency",
                      "Wire.podspec: Wire/Extensions/Concurrency depends on itself: remove that dependency"])
        let root = try await problems("Pixels", SubspecPods.pixels.replacingOccurrences(of: "mk.dependency 'Pixels/Core'", with: "mk.dependency 'Pixels'"), version: "5.19.1")
        expect(root, ["Pixels/MapKit depends on Pixels, one of its parents"])
    }

    /// `default_subspecs` names subspecs of the spec that sets it; `:none` is allowed.
    @Test func defaultSubspecsNameExistingSubspecs() async throws {
        let pixels = try await problems("Pixels", SubspecPods.pixels.replacingOccurrences(of: "s.default_subspec = 'Core'", with: "s.default_subspec = 'Cor'"), version: "5.19.1")
        expect(pixels, ["Pixels.podspec: Pixels's default subspec Cor is not one of its subspecs (its subspecs: Core, MapKit): fix the name, add the subspec, or remove it from default_subspecs"])
        let full = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "s.default_subspecs = 'Core', 'Extensions'", with: "s.default_subspecs = 'Wire/Core', 'Tests'"), version: "5.9.1")
        expect(full, ["Wire's default subspec Wire/Core is not one of its subspecs (its subspecs: Core, Extensions) (name a subspec relative to Wire, without the pod's name)",
                      "Wire's default subspec Tests is not one of its subspecs"])
        let nested = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "ext.default_subspec = 'Combine'", with: "ext.default_subspec = 'Core'"), version: "5.9.1")
        expect(nested, ["Wire/Extensions's default subspec Core is not one of its subspecs (its subspecs: Combine, Concurrency)"])
        #expect(try await problems("Pixels", SubspecPods.pixels.replacingOccurrences(of: "s.default_subspec = 'Core'", with: "s.default_subspecs = :none"), version: "5.19.1") == [])
    }

    /// A subspec's name: no slash, whitespace or leading period, not its parent's own, once
    /// among its siblings (test and app specs included).
    @Test func subspecNames() async throws {
        let pixels = try await problems("Pixels", SubspecPods.pixels.replacingOccurrences(of: "s.subspec 'MapKit'", with: "s.subspec 'Map Kit'"), version: "5.19.1")
        expect(pixels, ["Pixels.podspec: the subspec name Map Kit (in Pixels) contains whitespace: rename it"])
        let slash = try await problems("Pixels", SubspecPods.pixels.replacingOccurrences(of: "s.subspec 'MapKit'", with: "s.subspec 'Map/Kit'"), version: "5.19.1")
        expect(slash, ["the subspec name Map/Kit (in Pixels) contains a slash: nest a subspec inside another instead"])
        let period = try await problems("Pixels", SubspecPods.pixels.replacingOccurrences(of: "s.subspec 'MapKit'", with: "s.subspec '.MapKit'"), version: "5.19.1")
        expect(period, ["the subspec name .MapKit (in Pixels) begins with a period"])
        let parents = try await problems("Pixels", SubspecPods.pixels.replacingOccurrences(of: "s.subspec 'MapKit'", with: "s.subspec 'Pixels'"), version: "5.19.1")
        expect(parents, ["Pixels.podspec: the subspec Pixels/Pixels has its parent's own name: rename it (Pixels/Core, for example)"])
        let nested = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "ext.subspec 'Concurrency'", with: "ext.subspec 'Extensions'")
            .replacingOccurrences(of: "'Wire/Extensions/Concurrency'", with: "'Wire/Extensions/Extensions'"), version: "5.9.1")
        expect(nested, ["the subspec Wire/Extensions/Extensions has its parent's own name"])
        let twice = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "s.test_spec 'Tests'", with: "s.test_spec 'Core'"), version: "5.9.1")
        expect(twice, ["Wire.podspec: Wire/Core is declared twice under Wire: give each subspec a name of its own"])
        let json = try JSONSerialization.jsonObject(with: Data(#"{"name": "Pixels", "subspecs": [{"source_files": "a.m"}]}"#.utf8)) as? [String: Any] ?? [:]
        expect(Podspec.subspecProblems(json, shown: "Pixels.podspec.json"), ["Pixels.podspec.json: a subspec of Pixels has no name: give it one"])
    }

    /// A subspec with nothing on one of its platforms is empty there, unless a parent's dependency
    /// or subspecs of its own give it something.
    @Test func aSubspecWithNothingInItIsEmpty() async throws {
        let crash = try await problems("Flare", SubspecPods.flare.replacingOccurrences(of: "ss.dependency 'Flare/CoreOnly'\n    ss.dependency 'FlareCrashlytics', '~> 10.25.0'\n",
                                                                                          with: "ss.frameworks = 'Security'\n"), version: "10.25.0")
        expect(crash, ["Flare.podspec: the subspec Flare/Crashlytics is empty (no source_files, resources, resource_bundles, preserve_paths, vendored_libraries, vendored_frameworks, dependencies, nor subspecs): give it source_files or a dependency, or remove it"])
        let perPlatform = try await problems("Pixels", SubspecPods.pixels.replacingOccurrences(of: "mk.source_files = 'Pixels/MapKit/*.{h,m}'", with: "mk.ios.source_files = 'Pixels/MapKit/*.{h,m}'")
            .replacingOccurrences(of: "mk.dependency 'Pixels/Core'\n", with: ""), version: "5.19.1")
        expect(perPlatform, ["the subspec Pixels/MapKit is empty on osx, tvos (no source_files"])
        #expect(!perPlatform.contains { $0.contains("watchos") }, "MapKit is not on watchOS: \(perPlatform)")
        let inherited = SubspecPods.pixels.replacingOccurrences(of: "s.framework = 'ImageIO'", with: "s.dependency 'libwebp', '~> 1.0'")
            .replacingOccurrences(of: "mk.source_files = 'Pixels/MapKit/*.{h,m}'\n", with: "").replacingOccurrences(of: "mk.dependency 'Pixels/Core'\n", with: "")
        #expect(try await problems("Pixels", inherited, version: "5.19.1") == [], "MapKit inherits Pixels' dependency")
        let testSpec = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "tests.source_files = 'Tests/*.swift'\n    tests.dependency 'Wire/Extensions/Concurrency'\n", with: ""), version: "5.9.1")
        expect(testSpec, ["the test spec Wire/Tests is empty"])
    }

    /// Attributes only the pod itself may set are refused in a subspec.
    @Test func rootOnlyAttributesInASubspec() async throws {
        let wire = try await problems("Wire", SubspecPods.wire.replacingOccurrences(of: "core.frameworks = 'CFNetwork'", with: "core.frameworks = 'CFNetwork'\n    core.version = '5.9.2'\n    core.homepage = 'https://acme.test/core'"), version: "5.9.1")
        expect(wire, ["Wire.podspec: Wire/Core sets version, which only the pod itself may set (CocoaPods: \"Can't set `version` attribute for subspecs\"): move it to the root spec or remove it",
                      "Wire/Core sets homepage, which only the pod itself may set"])
    }
}
