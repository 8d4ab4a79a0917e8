{
// Title
//
title: string,
// Priority
//
// 1 is the most urgent
priority?: number, // default: 2
// Tags
//
tags?: {
    // Name
    //
    name: string,
    // Color
    //
    color?: string | null, // default: null
    }[], // default: []
// Due
//
due?: string | null, // default: null
}
