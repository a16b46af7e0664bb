// The compile command of this file (in compile_commands.json) is the one tests/docs/snippets.py
// compiles the documents' C++ blocks with: the compiler, parley's warnings, the include
// directories and the definitions of a program that uses parley, parley::net (compiled
// separately, as parley's own programs do) and parley::yaml.
