{
steps: any[],
final_answer: string,
linked_list: any,
}
