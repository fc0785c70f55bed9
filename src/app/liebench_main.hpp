#pragma once
// The whole liebench command-line program as a library function, for users who link their own
// models and methods into their own executable (examples/plugin):
//
//   #include "app/liebench_main.hpp"
//   int main(int argc, char** argv) { return lie::liebench_main(argc, argv); }
//
// Everything registered in the executable (LIEBENCH_REGISTER in its own .cpp files) is then
// listed, run and documented exactly like the built-in entries. Initialises and finalises MPI.

namespace lie {

/// Runs `liebench <command> ...`; returns the process exit status (see `liebench --help`).
int liebench_main(int argc, char** argv);

}  // namespace lie
