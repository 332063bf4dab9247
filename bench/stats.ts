/** The bench's one statistic: the median (the upper middle one of an even count), of a non-empty list. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
