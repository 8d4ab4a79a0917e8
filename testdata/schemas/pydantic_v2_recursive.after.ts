{
root: any,
// Depth
//
depth: number,
}
