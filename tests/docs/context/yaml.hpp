// context=yaml: what the C++ blocks of docs/yaml-format.md take as given.
#include <parley/chat/yaml.hpp>

#include <string>

std::string yaml_text = "templates: {}\n";  // the text of a YAML file
