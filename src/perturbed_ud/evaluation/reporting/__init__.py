"""From results to what a reader sees: statistics and intervals, summary tables, figures,
the comparison page of several runs, and the native-speaker review sheets."""
