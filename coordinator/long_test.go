package coordinator

import "flag"

// longTests runs the long variants of the hostile-client tests (hundreds
// of thousands of leases): go test ./coordinator/ -run Hostile -long.
var longTests = flag.Bool("long", false, "run the long variants of the hostile-client tests (hundreds of thousands of leases, thousands of connections)")
