// Parse a chat template once, render it with a described struct as the context.
#include <parley/jinja.hpp>

#include <boost/describe/class.hpp>

#include <iostream>
#include <string>
#include <vector>

struct message { std::string role, content; };
BOOST_DESCRIBE_STRUCT(message, (), (role, content))
struct chat { std::vector<message> messages; bool add_generation_prompt; };
BOOST_DESCRIBE_STRUCT(chat, (), (messages, add_generation_prompt))

int main() try {
    const auto chatml = parley::jinja::environment::hf().parse(
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content | trim }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}", "chatml");
    const chat c{{{"system", "You are terse."}, {"user", "  Capital of France?"}}, true};
    std::cout << chatml.render(c);  // read in place: nothing is copied or converted to JSON
} catch (const parley::template_error& e) {  // message with name:line:column, source line, caret
    std::cerr << e.what() << '\n';
    return 1;
}
