// The fastlink executable does not construct the standard streams (std::cin, std::cout, ...).
// Every object that includes <iostream> (yaml-cpp's, linked statically for `apply`) holds a static
// std::ios_base::Init whose constructor builds the eight streams and the classic locale before
// main: ~50 K instructions and 7 page faults of every command, a sixth of a `link show type
// bridge` (docs/BENCHMARKS.md, "The CLI's start-up, link options measured", stop 35). Nothing in
// the CLI uses those streams: output goes through stdio (kit/writer.hpp), a state document on
// standard input is read with read(2), and string streams need no Init (their locale is built on
// first use). cli/CMakeLists.txt links the executable with --wrap for the Init constructor and
// destructor, so those static objects call the empty functions below.
//
// If code in the executable ever names a standard stream, its definition is linked in: the test
// CliBinary.NoStandardStreams (tests/cli) fails on the symbol, before anything can write to an
// unconstructed stream. Only the executable is linked so: the library and the tests keep the
// ordinary behaviour.
extern "C" {
void __wrap__ZNSt8ios_base4InitC1Ev(void*) {}
void __wrap__ZNSt8ios_base4InitD1Ev(void*) {}
}
