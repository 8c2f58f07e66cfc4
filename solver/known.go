package solver

// published holds the number of solutions (OEIS A000170) and of fundamental
// solutions (OEIS A002562) of every board up to 27, the largest counted.
var published = [...]Counts{
	{}, {Total: 1, Unique: 1}, {}, {},
	{Total: 2, Unique: 1},
	{Total: 10, Unique: 2},
	{Total: 4, Unique: 1},
	{Total: 40, Unique: 6},
	{Total: 92, Unique: 12},
	{Total: 352, Unique: 46},
	{Total: 724, Unique: 92},
	{Total: 2680, Unique: 341},
	{Total: 14200, Unique: 1787},
	{Total: 73712, Unique: 9233},
	{Total: 365596, Unique: 45752},
	{Total: 2279184, Unique: 285053},
	{Total: 14772512, Unique: 1846955},
	{Total: 95815104, Unique: 11977939},
	{Total: 666090624, Unique: 83263591},
	{Total: 4968057848, Unique: 621012754},
	{Total: 39029188884, Unique: 4878666808},
	{Total: 314666222712, Unique: 39333324973},
	{Total: 2691008701644, Unique: 336376244042},
	{Total: 24233937684440, Unique: 3029242658210},
	{Total: 227514171973736, Unique: 28439272956934},
	{Total: 2207893435808352, Unique: 275986683743434},
	{Total: 22317699616364044, Unique: 2789712466510289},
	{Total: 234907967154122528, Unique: 29363495934315694},
}

// Known returns the published counts of an n-board (Nodes is zero), and
// false for an n nobody has counted. A coordinator uses them to refuse a
// task's result that claims more solutions than the whole board has.
func Known(n int) (Counts, bool) {
	if n < 1 || n >= len(published) {
		return Counts{}, false
	}
	return published[n], true
}
