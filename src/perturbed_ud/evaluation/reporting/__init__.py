"""From results to what a reader sees, as every task uses it: intervals, tables, bar
figures, the comparison page of several runs, and the native-speaker review sheets."""
