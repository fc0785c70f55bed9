// liebench: the command-line program. Everything it does is in the library
// (src/app/cli.cpp: lie::liebench_main), so that a user's own executable can be the same
// program with more models and methods linked in (examples/plugin).
#include "app/liebench_main.hpp"

int main(int argc, char** argv) { return lie::liebench_main(argc, argv); }
