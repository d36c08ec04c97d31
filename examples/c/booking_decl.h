/* tests/fixture/decl/book_flight.json as C string literals, made by tools/src/bin/c_decl.rs: do not edit.
 * scripts/test-c.sh fails when it differs from the file (--update-header rewrites it). */
#ifndef BOOK_FLIGHT_DECL_H
#define BOOK_FLIGHT_DECL_H

/* The tool's name. */
#define BOOK_FLIGHT_TOOL "book_flight"

/* Its parameters: compact JSON objects separated by commas, without the brackets. */
#define BOOK_FLIGHT_PARAMETERS \
    "{\"name\":\"destination\",\"elicit\":{\"message\":\"Where would you like to fly?\"}}," \
    "{\"name\":\"date\",\"elicit\":{\"message\":\"When would you like to fly?\"}}," \
    "{\"name\":\"airport\",\"elicit\":{\"needs\":[\"destination\"]}}," \
    "{\"name\":\"proceed\",\"type\":\"boolean\",\"elicit\":{\"needs\":[\"destination\",\"date\"]}}," \
    "{\"name\":\"seat\",\"type\":{\"enum\":[\"window\",\"aisle\"]},\"default\":null,\"elicit\":{\"message\":\"Window or aisle?\"}}"

#endif
