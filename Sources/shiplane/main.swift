import ShiplaneCLI

await ShiplaneCommandLine.main()
