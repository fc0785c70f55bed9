// A user's own liebench: the whole program (lie::liebench_main) with the example model and
// method linked in. `my_liebench list` shows them beside the built-in entries.
#include "app/liebench_main.hpp"

int main(int argc, char** argv) { return lie::liebench_main(argc, argv); }
