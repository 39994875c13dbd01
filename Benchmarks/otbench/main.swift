// otbench: measures OTKit against bare C loops over the same work, in the same run.
// See docs/benchmarks.md. Exit codes: 0 all goals met, 1 a goal missed or the
// scenario failed, 2 a usage error.
import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == SFURouterChild.flag {
    exit(SFURouterChild.run(arguments: Array(arguments.dropFirst())))
}
exit(Runner.run(arguments: arguments))
