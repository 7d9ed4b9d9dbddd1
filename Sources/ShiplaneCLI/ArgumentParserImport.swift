// The command line is built with swift-argument-parser throughout this module; `Shiplane`
// re-exports only what lanes name of it, so the module imports the whole parser here, once.
@_exported import ArgumentParser
