import ForagerSyncTool
import Foundation

// The command-line front of ForagerSyncTool: run, print, exit 0/1/2.
let result = SyncTool.run(Array(CommandLine.arguments.dropFirst()))
FileHandle.standardOutput.write(Data(result.output.utf8))
FileHandle.standardError.write(Data(result.errors.utf8))
exit(result.status)
