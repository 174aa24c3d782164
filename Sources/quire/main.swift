import QuireCore

// The PO parser's child process (libgettextpo must not take the parent down): see POFileParser.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == POFileParser.childArgument {
    POFileParser.runChildMain(file: CommandLine.arguments[2])
}

print("quire")
