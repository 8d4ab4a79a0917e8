{
// Title
//
title: string,
// 1 is the most urgent
priority?: any, // default: 2
// Tags
//
tags?: any[], // default: []
// Due
//
due?: any, // default: null
}
