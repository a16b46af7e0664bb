// context=weather: the functions of docs/bot.md's weather bot, with what their bodies call.
#include <boost/asio/awaitable.hpp>
#include <boost/describe/class.hpp>

#include <string>
#include <vector>

struct weather_query {
    std::string city;
};
BOOST_DESCRIBE_STRUCT(weather_query, (), (city))

struct weather {
    std::string city;
    int celsius = 0;
};
BOOST_DESCRIBE_STRUCT(weather, (), (city, celsius))

struct forecast_query {
    std::string city;
    int days = 3;
};
BOOST_DESCRIBE_STRUCT(forecast_query, (), (city, days))

struct day {
    std::string date;
    int celsius = 0;
};
BOOST_DESCRIBE_STRUCT(day, (), (date, celsius))

weather look_up(const std::string& city) { return {city, 20}; }
boost::asio::awaitable<std::vector<day>> fetch_forecast(const forecast_query& q) {
    co_return std::vector<day>(static_cast<std::size_t>(q.days));
}
std::string clock_text() { return "12:00"; }
